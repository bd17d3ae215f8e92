package io.vnpu.api.health;

import java.time.Instant;
import java.util.Objects;

/**
 * One fault observation on one chip.
 *
 * @param logicId DCMI logic ID of the chip
 * @param code the fault code
 * @param assertion occurred, recovered or one-shot
 * @param severity {@code dcmi_dms_fault_event.severity} (0 warning, 1 minor, 2 major, 3 critical),
 *     or -1 when the source does not say (polling, card drop, link status)
 * @param time when the fault was raised ({@code alarm_raised_time}) or observed
 * @param origin which source reported it
 */
public record FaultEvent(
    int logicId,
    FaultCode code,
    Assertion assertion,
    int severity,
    Instant time,
    FaultOrigin origin) {
  public FaultEvent {
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(assertion, "assertion");
    Objects.requireNonNull(time, "time");
    Objects.requireNonNull(origin, "origin");
    if (severity < -1 || severity > 255) throw new IllegalArgumentException("severity " + severity);
  }
}
