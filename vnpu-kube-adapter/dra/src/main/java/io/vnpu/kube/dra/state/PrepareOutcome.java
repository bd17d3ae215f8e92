package io.vnpu.kube.dra.state;

import io.vnpu.kube.dra.checkpoint.PreparedDevice;
import java.util.List;
import java.util.Objects;

/**
 * The answer for one claim of a NodePrepareResources call (proto {@code
 * NodePrepareResourceResponse}): its devices, or a non-empty error.
 */
public record PrepareOutcome(List<PreparedDevice> devices, String error) {
  public PrepareOutcome {
    devices = List.copyOf(devices);
    Objects.requireNonNull(error, "error");
  }

  public static PrepareOutcome prepared(List<PreparedDevice> devices) {
    return new PrepareOutcome(devices, "");
  }

  public static PrepareOutcome failed(String error) {
    return new PrepareOutcome(List.of(), error);
  }
}
