package io.vnpu.kube.cli.node;

import io.vnpu.api.model.Npu;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.sim.BundledSimulator;
import io.vnpu.kube.cli.NodeEnvironment;
import io.vnpu.kube.cli.run.WorkloadEnvironment;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/** {@link NodeAccess} through the DCMI binding, choosing the node with {@link NodeEnvironment}. */
public final class DcmiNodeAccess implements NodeAccess {

  private final NodeEnvironment environment;

  public DcmiNodeAccess(NodeEnvironment environment) {
    this.environment = environment;
  }

  @Override
  public NodeInfo discover(String simProfile, Path simRoot, PrintWriter err) {
    NodeEnvironment.Selection sel = environment.select(simProfile);
    BundledSimulator bundled = null;
    if (sel.simulated()) {
      bundled = new BundledSimulator(sel.library().path().getParent());
      bundled.configure(null, simRoot); // the profile is set by open()
    }
    List<Npu> npus;
    try (DcmiDeviceManager dm = environment.open(sel, err)) {
      npus = dm.discover();
    }
    WorkloadEnvironment.Simulator sim = bundled == null ? null
        : new WorkloadEnvironment.Simulator(sel.library().path().getParent(), bundled.root(), bundled.profile());
    return new NodeInfo(npus, sel.library().path() + " (" + sel.library().origin() + ")", sim);
  }
}
