package io.vnpu.kube.mindcluster.devices;

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

  /** The chip with this MindCluster name ({@code Ascend910-3}). */
  public Optional<ChipState> byName(String name) {
    return chips.stream().filter(c -> c.name().equals(name)).findFirst();
  }
}
