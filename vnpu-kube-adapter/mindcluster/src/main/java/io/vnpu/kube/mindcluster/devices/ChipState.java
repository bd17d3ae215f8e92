package io.vnpu.kube.mindcluster.devices;

import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.SuperPodInfo;
import io.vnpu.api.model.Vnpu;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One chip as the backend last read it.
 *
 * @param npu the chip (logic ID, phy ID, chip name, AI Cores, NUMA node)
 * @param type its family
 * @param vnpus vNPUs that exist on it, by vNPU ID (empty when the chip has no virtualisation)
 * @param health its health from the node's {@code HealthSource}
 * @param productType the card's product ({@code dcmi_get_product_type}, e.g. {@code Atlas 300V
 *     Pro}), empty on server products
 * @param roceIp the parameter-plane (RoCE) address ({@code dcmi_get_device_ip}), empty when the
 *     chip has none (310P) or it is not configured
 * @param deviceType the device type the whole chip is advertised as: the family's name ({@code
 *     Ascend910}, {@code Ascend310P}, ...) or, with 310P mixed insertion, the product's ({@code
 *     Ascend310P-VPro}, see {@link Mixed310P})
 * @param cardPeerUnhealthy the other chip of its Atlas 300I Duo card is unhealthy and the card
 *     resets as a whole ({@code -hotReset=0}): reported unhealthy too (spec 3.4)
 * @param superPod its super-pod membership ({@code dcmi_spod_info}; {@link SuperPodInfo#UNKNOWN} on
 *     chips other than A3/A5)
 */
public record ChipState(
    Npu npu,
    CardType type,
    List<Vnpu> vnpus,
    ChipHealth health,
    Optional<String> productType,
    Optional<String> roceIp,
    String deviceType,
    boolean cardPeerUnhealthy,
    SuperPodInfo superPod) {
  public ChipState {
    Objects.requireNonNull(npu, "npu");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(health, "health");
    Objects.requireNonNull(productType, "productType");
    Objects.requireNonNull(roceIp, "roceIp");
    Objects.requireNonNull(deviceType, "deviceType");
    Objects.requireNonNull(superPod, "superPod");
    vnpus = List.copyOf(vnpus);
  }

  /** A chip of its family's device type, without product type or RoCE address. */
  public ChipState(Npu npu, CardType type, List<Vnpu> vnpus, ChipHealth health) {
    this(
        npu,
        type,
        vnpus,
        health,
        Optional.empty(),
        Optional.empty(),
        type.deviceName(),
        false,
        SuperPodInfo.UNKNOWN);
  }

  /** A copy with another health (the card rule is applied again by the inventory). */
  public ChipState withHealth(ChipHealth newHealth) {
    return new ChipState(
        npu, type, vnpus, newHealth, productType, roceIp, deviceType, false, superPod);
  }

  /** A copy with {@link #cardPeerUnhealthy()} set. */
  public ChipState withCardPeerUnhealthy(boolean peerUnhealthy) {
    return new ChipState(
        npu, type, vnpus, health, productType, roceIp, deviceType, peerUnhealthy, superPod);
  }

  /**
   * Whether the kubelet and the ConfigMap see the chip healthy: its own health, unless the other
   * chip of its Atlas 300I Duo card is unhealthy under {@code -hotReset=0}.
   */
  public boolean healthy() {
    return health.healthy() && !cardPeerUnhealthy;
  }

  /**
   * {@code <deviceType>-<phy>}, the chip's MindCluster name, e.g. {@code Ascend910-3}, {@code
   * Ascend310P-VPro-0}.
   */
  public String name() {
    return MindClusterResources.chip(deviceType, npu.phyId());
  }

  /** The extended resource the whole chip is advertised under, {@code huawei.com/<deviceType>}. */
  public String resourceName() {
    return MindClusterResources.resource(deviceType);
  }

  /** NUMA nodes for TopologyInfo: the chip's node, or none when unknown. */
  public List<Integer> numaNodes() {
    return npu.numaNode() >= 0 ? List.of(npu.numaNode()) : List.of();
  }
}
