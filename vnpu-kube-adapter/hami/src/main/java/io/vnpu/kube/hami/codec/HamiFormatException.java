package io.vnpu.kube.hami.codec;

/**
 * A HAMi annotation value could not be decoded. The message names the annotation (or field) and
 * quotes the offending value.
 */
public class HamiFormatException extends Exception {
  private static final long serialVersionUID = 1L;

  public HamiFormatException(String message) {
    super(message);
  }

  public HamiFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
