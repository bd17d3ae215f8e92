package io.vnpu.api.model;

/**
 * A text is not a usable memory size. The message is {@code '<text>' <reason>}, e.g. {@code
 * '1.5Ki5' is not a size: write a quantity such as 8Gi or 512Mi, or an integer number of MiB};
 * {@link #reason()} is the part after the quoted text, for callers that name the field themselves.
 */
public final class MemorySizeException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String text;
  private final String reason;

  public MemorySizeException(String text, String reason) {
    super("'" + text + "' " + reason);
    this.text = text;
    this.reason = reason;
  }

  /** The text as written. */
  public String text() {
    return text;
  }

  /** Why it is not a size, without the text. */
  public String reason() {
    return reason;
  }
}
