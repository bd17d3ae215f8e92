package io.vnpu.kube.resource;

/**
 * Allocate failed for a container; the message is returned to the kubelet (gRPC status) and must
 * name the cause (pod, annotation, device).
 */
public class AllocationException extends Exception {
  private static final long serialVersionUID = 1L;

  public AllocationException(String message) {
    super(message);
  }

  public AllocationException(String message, Throwable cause) {
    super(message, cause);
  }
}
