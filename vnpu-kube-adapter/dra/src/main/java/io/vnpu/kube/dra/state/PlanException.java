package io.vnpu.kube.dra.state;

/**
 * A claim cannot be prepared as allocated (device not offered here, config not supported, device
 * node missing); becomes that claim's {@code error} in the NodePrepareResources answer while the
 * other claims of the call are still prepared.
 */
public final class PlanException extends Exception {
  public PlanException(String message) {
    super(message);
  }

  public PlanException(String message, Throwable cause) {
    super(message, cause);
  }
}
