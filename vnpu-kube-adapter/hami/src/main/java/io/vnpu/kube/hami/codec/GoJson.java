package io.vnpu.kube.hami.codec;

/**
 * String quoting exactly as Go {@code encoding/json} does it (HTML-safe escaping of {@code <>&} and
 * of U+2028/U+2029), so encoded annotations are byte-identical with the Go plugin's.
 */
final class GoJson {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private GoJson() {}

  static void appendQuoted(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029') {
            out.append("\\u")
                .append(HEX[(c >> 12) & 0xF])
                .append(HEX[(c >> 8) & 0xF])
                .append(HEX[(c >> 4) & 0xF])
                .append(HEX[c & 0xF]);
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
