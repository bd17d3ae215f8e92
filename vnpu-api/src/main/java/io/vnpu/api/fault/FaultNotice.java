package io.vnpu.api.fault;

import io.vnpu.api.health.FaultCode;
import io.vnpu.api.health.FaultLevel;
import java.time.Instant;

/**
 * A fault occurring, recovering or a one-shot notice on one chip: what becomes a Kubernetes Event
 * (type Warning, reason {@code Occur}, {@code Recovery} or {@code Notice}).
 */
public record FaultNotice(int logicId, FaultCode code, Kind kind, FaultLevel level, Instant time) {
  /** The Event reason. */
  public enum Kind {
    Occur,
    Recovery,
    Notice
  }

  /** One line for an Event message or a log. */
  public String message() {
    return switch (kind) {
      case Occur ->
          "NPU logic " + logicId + ": fault " + code.hex() + " occurred (" + level.term() + ")";
      case Recovery -> "NPU logic " + logicId + ": fault " + code.hex() + " recovered";
      case Notice ->
          "NPU logic " + logicId + ": one-shot fault " + code.hex() + " (" + level.term() + ")";
    };
  }
}
