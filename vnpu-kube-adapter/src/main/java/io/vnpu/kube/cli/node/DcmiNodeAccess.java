package io.vnpu.kube.cli.node;

import io.vnpu.api.model.Npu;
import io.vnpu.dcmi.DcmiNodeSelector;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** {@link NodeAccess} through the DCMI binding, choosing the node with {@link DcmiNodeSelector}. */
public final class DcmiNodeAccess implements NodeAccess {

  private final DcmiNodeSelector selector;

  public DcmiNodeAccess(DcmiNodeSelector selector) {
    this.selector = selector;
  }

  @Override
  public NodeInfo discover(String simProfile, Path simRoot, PrintWriter err) {
    DcmiNodeSelector.Selection sel = selector.select(simProfile);
    List<Npu> npus;
    Optional<DcmiNodeSelector.SimulatedNode> sim;
    try (DcmiNodeSelector.OpenNode node = selector.open(sel, Optional.ofNullable(simRoot), line -> {
      err.println(line);
      err.flush();
    })) {
      npus = node.deviceManager().discover();
      sim = node.simulator();
    }
    return new NodeInfo(npus, sel.library().path() + " (" + sel.library().origin() + ")", sim.orElse(null));
  }
}
