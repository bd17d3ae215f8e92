package io.vnpu.kube.softslice;

/**
 * A soft slice asks for more than the scheduler charged, or the charge itself is no limit (0 MiB).
 * The message names the field and its value ({@code <source> <field> = <value>: <reason>}); the
 * backend prefixes the claim or pod, request or container.
 */
public final class SoftSliceRefusedException extends Exception {
  private static final long serialVersionUID = 1L;

  public SoftSliceRefusedException(String message) {
    super(message);
  }
}
