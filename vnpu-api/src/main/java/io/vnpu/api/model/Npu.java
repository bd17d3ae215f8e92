package io.vnpu.api.model;

import java.util.Objects;

/**
 * One physical NPU (one chip; a card may hold one or two chips).
 *
 * @param uuid die-ID UUID: the VDIE die ID as 5 upper-case 8-digit hex words joined by {@code -}
 * @param logicId DCMI logic ID (what {@code dcmi_get_device_logic_id} returns), 0-based and dense
 * @param phyId physical ID, the {@code N} of {@code /dev/davinciN} and of {@code
 *     ASCEND_VISIBLE_DEVICES}
 * @param cardId DCMI card ID (may be non-contiguous)
 * @param deviceId device index within its card (0, or 0..1 on two-chip cards)
 * @param chipName chip name, e.g. {@code 910B3}
 * @param hbmBytes device memory capacity in bytes
 * @param aiCores AI Cores on this chip
 * @param aiCpus AI CPUs on this chip
 * @param health current health
 * @param numaNode NUMA node of the PCIe device, or -1 when unknown
 */
public record Npu(
    String uuid,
    int logicId,
    int phyId,
    int cardId,
    int deviceId,
    String chipName,
    long hbmBytes,
    int aiCores,
    int aiCpus,
    DeviceHealth health,
    int numaNode) {
  public Npu {
    Objects.requireNonNull(uuid, "uuid");
    Objects.requireNonNull(chipName, "chipName");
    Objects.requireNonNull(health, "health");
    if (hbmBytes < 0) throw new IllegalArgumentException("hbmBytes must be >= 0: " + hbmBytes);
  }

  /** A copy with another health state. */
  public Npu withHealth(DeviceHealth newHealth) {
    return new Npu(
        uuid, logicId, phyId, cardId, deviceId, chipName, hbmBytes, aiCores, aiCpus, newHealth,
        numaNode);
  }

  /** HBM capacity in MiB (rounded down). */
  public long hbmMib() {
    return hbmBytes / Units.MIB;
  }
}
