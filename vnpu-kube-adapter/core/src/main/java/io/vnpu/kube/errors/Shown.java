package io.vnpu.kube.errors;

/**
 * An untrusted value (a pod annotation, a claim parameter, a flag) as an error message or log line
 * shows it: on one line and short. A text with control characters is shown JSON-quoted (a hostile
 * value cannot forge lines in the kubelet's admission message, events or logs), and anything longer
 * than {@value #MAX_CHARS} characters is cut, with its length said. The one rule for every adapter.
 */
public final class Shown {
  /** Longest value shown, in characters (after quoting). */
  public static final int MAX_CHARS = 64;

  private Shown() {}

  /**
   * {@code text} as shown: unchanged when short and printable, e.g. {@code 16384}; JSON-quoted when
   * it has a control character, e.g. {@code "1\n2"}; cut after {@value #MAX_CHARS} characters as
   * {@code <first 64>... (200000 characters)}.
   *
   * @param text the value; {@code null} is shown as {@code (none)}
   */
  public static String value(String text) {
    if (text == null) return "(none)";
    return cut(text.chars().anyMatch(Character::isISOControl) ? jsonQuoted(text) : text);
  }

  /**
   * A string value as a JSON document shows it, always quoted ({@code "16384"}, {@code "1\n2"}),
   * cut as {@link #value}: the form for values that are strings by nature, such as annotations.
   *
   * @param text the value; {@code null} is shown as {@code (none)}
   */
  public static String string(String text) {
    return text == null ? "(none)" : cut(jsonQuoted(text));
  }

  private static String cut(String s) {
    return s.length() <= MAX_CHARS
        ? s
        : s.substring(0, MAX_CHARS) + "... (" + s.length() + " characters)";
  }

  /** RFC 8259 string literal: quotes, backslash and control characters escaped. */
  static String jsonQuoted(String s) {
    StringBuilder b = new StringBuilder(s.length() + 8).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        case '\b' -> b.append("\\b");
        case '\f' -> b.append("\\f");
        default -> {
          if (Character.isISOControl(c)) b.append(String.format("\\u%04X", (int) c));
          else b.append(c);
        }
      }
    }
    return b.append('"').toString();
  }
}
