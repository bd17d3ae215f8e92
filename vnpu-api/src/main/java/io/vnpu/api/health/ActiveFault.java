package io.vnpu.api.health;

import java.time.Instant;
import java.util.Objects;

/**
 * A fault present on a chip now.
 *
 * @param code the fault code
 * @param level its level from {@code faultCode.json} (or from the event severity for an unknown
 *     code)
 * @param since when it was first seen
 * @param origin where it was learnt from
 */
public record ActiveFault(FaultCode code, FaultLevel level, Instant since, FaultOrigin origin) {
  public ActiveFault {
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(level, "level");
    Objects.requireNonNull(since, "since");
    Objects.requireNonNull(origin, "origin");
  }
}
