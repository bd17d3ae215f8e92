package io.vnpu.dcmi;

import io.vnpu.api.spi.DeviceException;

/**
 * A DCMI function returned an error: carries the function name, the numeric return code and its
 * symbolic meaning ({@link DcmiErrorCode}).
 */
public class DcmiException extends DeviceException {
  private static final long serialVersionUID = 1L;

  private final String function;
  private final int code;
  private final String context;

  public DcmiException(String function, int code, String context) {
    super(format(function, code, context));
    this.function = function;
    this.code = code;
    this.context = context;
  }

  public DcmiException(String function, int code, String context, Throwable cause) {
    super(format(function, code, context), cause);
    this.function = function;
    this.code = code;
    this.context = context;
  }

  private static String format(String function, int code, String context) {
    DcmiErrorCode symbolic = DcmiErrorCode.of(code);
    String base =
        function + " failed: " + code + " " + symbolic.name() + " (" + symbolic.meaning() + ")";
    return context == null || context.isEmpty() ? base : base + ": " + context;
  }

  /**
   * What the failure was about, without the {@code <function> failed: <code> ...} prefix (so a
   * wrapping error can reuse it without repeating the prefix); null or empty when none was given.
   */
  public String context() {
    return context;
  }

  /** The DCMI function, e.g. {@code dcmi_create_vdevice}. */
  public String function() {
    return function;
  }

  /** The DCMI return code, e.g. -8020. */
  public int code() {
    return code;
  }

  /** The code's symbolic constant. */
  public DcmiErrorCode errorCode() {
    return DcmiErrorCode.of(code);
  }
}
