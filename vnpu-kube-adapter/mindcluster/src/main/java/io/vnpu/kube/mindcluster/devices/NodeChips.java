package io.vnpu.kube.mindcluster.devices;

import io.vnpu.api.model.SuperPodInfo;
import java.util.List;
import java.util.Optional;

/** An immutable snapshot of the node's chips in logic-ID order. */
public record NodeChips(List<ChipState> chips) {
  public static final NodeChips EMPTY = new NodeChips(List.of());

  public NodeChips {
    chips = List.copyOf(chips);
  }

  /** The chip with this phy ID. */
  public Optional<ChipState> byPhyId(int phyId) {
    return chips.stream().filter(c -> c.npu().phyId() == phyId).findFirst();
  }

  /**
   * The node's super-pod membership as MindCluster reports it ({@code SuperPodID}, {@code
   * ServerIndex}, {@code superPodID}, {@code serverIndex}, {@code super_pod_id}): the first chip
   * whose driver answered, else {@link SuperPodInfo#UNKNOWN} (-2, e.g. on 910B).
   */
  public SuperPodInfo superPod() {
    return chips.stream()
        .map(ChipState::superPod)
        .filter(SuperPodInfo::known)
        .findFirst()
        .orElse(SuperPodInfo.UNKNOWN);
  }

  /** The chip with this MindCluster name ({@code Ascend910-3}). */
  public Optional<ChipState> byName(String name) {
    return chips.stream().filter(c -> c.name().equals(name)).findFirst();
  }
}
