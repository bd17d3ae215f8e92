package io.vnpu.kube.cli.node;

import io.vnpu.api.model.Npu;
import io.vnpu.dcmi.DcmiNodeSelector;
import io.vnpu.quota.host.WorkloadEnvironment;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The node a CLI command works on, as discovered through DCMI.
 *
 * @param npus every NPU, ordered by logic ID
 * @param library the libdcmi.so used and why (e.g. {@code bundled simulator})
 * @param simulator the bundled simulated node's settings, or null on a real host
 */
public record NodeInfo(List<Npu> npus, String library, DcmiNodeSelector.SimulatedNode simulator) {

  public NodeInfo {
    npus = List.copyOf(npus);
  }

  /** Whether this is the bundled simulated node. */
  public boolean simulated() {
    return simulator != null;
  }

  /** The NPU with this logic ID. */
  public Optional<Npu> npu(int logicId) {
    return npus.stream().filter(n -> n.logicId() == logicId).findFirst();
  }

  /**
   * What a workload's CANN runtime needs on this node (the simulated CANN and its state, or
   * nothing).
   */
  public WorkloadEnvironment.NodeRuntime runtime() {
    if (simulator == null) return WorkloadEnvironment.NodeRuntime.INSTALLED;
    Map<String, String> v = new LinkedHashMap<>();
    v.put(DcmiNodeSelector.SimulatedNode.ROOT_ENV, simulator.root().toString());
    v.put(DcmiNodeSelector.SimulatedNode.PROFILE_ENV, simulator.profile());
    return new WorkloadEnvironment.NodeRuntime(Optional.of(simulator.libraryDir()), v);
  }
}
