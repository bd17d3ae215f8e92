package io.vnpu.kube.mindcluster.devices;

import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.health.ChipHealth;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One chip as the backend last read it.
 *
 * @param npu    the chip (logic ID, phy ID, chip name, AI Cores, NUMA node)
 * @param type   its family
 * @param vnpus  vNPUs that exist on it, by vNPU ID (empty when the chip has no virtualisation)
 * @param health its health from the node's {@code HealthSource}
 * @param productType the card's product ({@code dcmi_get_product_type}, e.g. {@code Atlas 300V Pro}),
 *                    empty on server products
 * @param roceIp      the parameter-plane (RoCE) address ({@code dcmi_get_device_ip}), empty when
 *                    the chip has none (310P) or it is not configured
 */
public record ChipState(Npu npu, CardType type, List<Vnpu> vnpus, ChipHealth health,
    Optional<String> productType, Optional<String> roceIp) {
  public ChipState {
    Objects.requireNonNull(npu, "npu");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(health, "health");
    Objects.requireNonNull(productType, "productType");
    Objects.requireNonNull(roceIp, "roceIp");
    vnpus = List.copyOf(vnpus);
  }

  /** A chip without product type or RoCE address. */
  public ChipState(Npu npu, CardType type, List<Vnpu> vnpus, ChipHealth health) {
    this(npu, type, vnpus, health, Optional.empty(), Optional.empty());
  }

  /** A copy with another health. */
  public ChipState withHealth(ChipHealth newHealth) {
    return new ChipState(npu, type, vnpus, newHealth, productType, roceIp);
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
