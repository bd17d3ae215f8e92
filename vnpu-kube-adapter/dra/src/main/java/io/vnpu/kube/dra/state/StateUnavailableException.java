package io.vnpu.kube.dra.state;

/**
 * The claim state cannot be used right now (lock busy past its timeout, checkpoint not writable);
 * fails the whole kubelet call, which the kubelet retries.
 */
public final class StateUnavailableException extends Exception {
  public StateUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
