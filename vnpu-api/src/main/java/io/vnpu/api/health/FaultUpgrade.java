package io.vnpu.api.health;

import java.time.Instant;
import java.util.Objects;

/**
 * A level raised by {@code faultCustomization.json}: one element of the device-info ConfigMap's
 * {@code UpgradeFaultReason} list ({@code fault_code}, {@code fault_level}, {@code upgrade_type},
 * {@code upgrade_time}).
 *
 * @param code the fault code whose frequency or duration triggered it
 * @param level the level it was raised to
 * @param type {@code FaultFrequency} or {@code FaultDuration}
 * @param time when it was raised
 */
public record FaultUpgrade(FaultCode code, FaultLevel level, Type type, Instant time) {
  /** Why a level was raised. */
  public enum Type {
    FaultFrequency,
    FaultDuration
  }

  public FaultUpgrade {
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(level, "level");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(time, "time");
  }
}
