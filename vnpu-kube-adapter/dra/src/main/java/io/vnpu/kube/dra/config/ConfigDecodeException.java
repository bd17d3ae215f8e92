package io.vnpu.kube.dra.config;

/** A claim's opaque configuration that cannot be used; the message names field and value. */
public final class ConfigDecodeException extends Exception {
  public ConfigDecodeException(String message) {
    super(message);
  }
}
