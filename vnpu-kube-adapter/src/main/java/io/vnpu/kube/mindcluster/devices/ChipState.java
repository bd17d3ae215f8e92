package io.vnpu.kube.mindcluster.devices;

import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.health.ChipHealth;
import java.util.List;
import java.util.Objects;

/**
 * One chip as the backend last read it.
 *
 * @param npu    the chip (logic ID, phy ID, chip name, AI Cores, NUMA node)
 * @param type   its family
 * @param vnpus  vNPUs that exist on it, by vNPU ID (empty when the chip has no virtualisation)
 * @param health its health from the node's {@code HealthSource}
 */
public record ChipState(Npu npu, CardType type, List<Vnpu> vnpus, ChipHealth health) {
  public ChipState {
    Objects.requireNonNull(npu, "npu");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(health, "health");
    vnpus = List.copyOf(vnpus);
  }

  /** {@code <Name>-<phy>}, the chip's MindCluster name. */
  public String name() {
    return MindClusterResources.chip(type, npu.phyId());
  }

  /** NUMA nodes for TopologyInfo: the chip's node, or none when unknown. */
  public List<Integer> numaNodes() {
    return npu.numaNode() >= 0 ? List.of(npu.numaNode()) : List.of();
  }
}
