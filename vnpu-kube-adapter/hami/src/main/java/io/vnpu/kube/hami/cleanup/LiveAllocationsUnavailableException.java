package io.vnpu.kube.hami.cleanup;

/** The holders of the node's vNPUs cannot be read now (e.g. the API server is unreachable). */
public class LiveAllocationsUnavailableException extends Exception {
  private static final long serialVersionUID = 1L;

  public LiveAllocationsUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
