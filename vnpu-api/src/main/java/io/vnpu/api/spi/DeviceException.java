package io.vnpu.api.spi;

/** A device-management operation failed (driver call error, unknown device, exhausted chip). */
public class DeviceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public DeviceException(String message) {
    super(message);
  }

  public DeviceException(String message, Throwable cause) {
    super(message, cause);
  }
}
