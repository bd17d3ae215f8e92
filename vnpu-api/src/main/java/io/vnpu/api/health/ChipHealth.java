package io.vnpu.api.health;

import io.vnpu.api.model.DeviceHealth;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Health of one chip as every adapter sees it: chip health and parameter-plane network health are
 * separate results, each with its level and reason (vnpu DCMI spec sections 3.4, 3.5).
 *
 * @param logicId DCMI logic ID
 * @param healthy the chip may be handed to workloads
 * @param level the chip's fault level: the most severe of its non-network faults, their escalations
 *     and a manual separation
 * @param reason why it has that level, empty when NormalNPU, e.g. {@code 80E01801 RestartBusiness
 *     (event)}
 * @param networkHealthy the parameter-plane network is usable
 * @param networkLevel level of the network faults (0x81078603, 0x81078607, 0x110000002,
 *     0x110001024) and their escalations
 * @param networkReason why, empty when NormalNPU
 * @param faults every active fault, network ones included, ordered by code
 * @param upgrades escalations in force (the {@code UpgradeFaultReason} record)
 * @param resetting a hot reset of this chip is in progress (reported as Recovering)
 */
public record ChipHealth(
    int logicId,
    boolean healthy,
    FaultLevel level,
    String reason,
    boolean networkHealthy,
    FaultLevel networkLevel,
    String networkReason,
    List<ActiveFault> faults,
    List<FaultUpgrade> upgrades,
    boolean resetting) {
  public ChipHealth {
    Objects.requireNonNull(level, "level");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(networkLevel, "networkLevel");
    Objects.requireNonNull(networkReason, "networkReason");
    faults = faults.stream().sorted(Comparator.comparing(ActiveFault::code)).toList();
    upgrades = List.copyOf(upgrades);
  }

  /** A chip with no fault. */
  public static ChipHealth normal(int logicId) {
    return new ChipHealth(
        logicId,
        true,
        FaultLevel.NORMAL_NPU,
        "",
        true,
        FaultLevel.NORMAL_NPU,
        "",
        List.of(),
        List.of(),
        false);
  }

  /**
   * The health in the SDK's device model: unhealthy when the chip is, with {@link #reason()} (or
   * "reset in progress") and the code of the most severe fault; network health is not folded in
   * (adapters report it separately).
   */
  public DeviceHealth toDeviceHealth() {
    if (healthy) return DeviceHealth.HEALTHY;
    long code =
        faults.stream()
            .filter(f -> f.level() == level)
            .map(f -> f.code().value())
            .findFirst()
            .orElse(faults.isEmpty() ? 0L : faults.get(0).code().value());
    String why =
        resetting && reason.isEmpty()
            ? "reset in progress"
            : resetting ? "reset in progress; " + reason : reason;
    return new DeviceHealth(false, why, code);
  }
}
