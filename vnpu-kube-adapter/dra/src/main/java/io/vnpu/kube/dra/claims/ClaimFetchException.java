package io.vnpu.kube.dra.claims;

/**
 * A claim named by the kubelet could not be read or is not the one the kubelet means; fails the
 * whole NodePrepareResources call (the kubelet retries it).
 */
public final class ClaimFetchException extends Exception {
  private final boolean transientFailure;

  public ClaimFetchException(String message, boolean transientFailure, Throwable cause) {
    super(message, cause);
    this.transientFailure = transientFailure;
  }

  /** True when retrying may help (API server unreachable), false for a wrong claim. */
  public boolean transientFailure() {
    return transientFailure;
  }
}
