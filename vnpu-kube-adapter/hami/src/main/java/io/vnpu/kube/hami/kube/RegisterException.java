package io.vnpu.kube.hami.kube;

/** Publishing the node annotations failed (node missing, API error). */
public class RegisterException extends Exception {
  private static final long serialVersionUID = 1L;

  public RegisterException(String message) {
    super(message);
  }

  public RegisterException(String message, Throwable cause) {
    super(message, cause);
  }
}
