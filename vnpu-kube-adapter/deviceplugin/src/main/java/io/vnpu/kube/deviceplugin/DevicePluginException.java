package io.vnpu.kube.deviceplugin;

/** The device plugin server gave up (restart budget spent) or could not be started. */
public class DevicePluginException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public DevicePluginException(String message, Throwable cause) {
    super(message, cause);
  }
}
