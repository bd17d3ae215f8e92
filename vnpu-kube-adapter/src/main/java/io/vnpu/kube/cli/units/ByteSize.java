package io.vnpu.kube.cli.units;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Memory sizes on the command line and in human output. Input is a Kubernetes-style quantity
 * ({@code 8Gi}, {@code 512Mi}, {@code 1.5Gi}, {@code 16G}) or a plain integer of MiB (as HAMi's
 * {@code huawei.com/<commonWord>-memory}); the value is returned in bytes.
 */
public final class ByteSize {

  private static final long MIB = 1L << 20;
  private static final Pattern QUANTITY =
      Pattern.compile("([0-9]+(?:\\.[0-9]+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?");
  private static final Map<String, Long> FACTOR = Map.of(
      "Ki", 1L << 10, "Mi", 1L << 20, "Gi", 1L << 30, "Ti", 1L << 40,
      "k", 1_000L, "M", 1_000_000L, "G", 1_000_000_000L, "T", 1_000_000_000_000L);

  private ByteSize() {}

  /**
   * Parses a size.
   *
   * @return bytes, &gt; 0
   * @throws IllegalArgumentException naming the text when it is not a size, is zero, is not a
   *     whole number of bytes, or overflows 64 bits
   */
  public static long parseBytes(String text) {
    Matcher m = QUANTITY.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("'" + text + "' is not a size: write a quantity such as 8Gi or 512Mi,"
          + " or an integer number of MiB");
    }
    long factor = m.group(2) == null ? MIB : FACTOR.get(m.group(2));
    BigDecimal bytes = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(factor));
    if (bytes.signum() == 0) throw new IllegalArgumentException("'" + text + "' must be larger than 0");
    if (bytes.stripTrailingZeros().scale() > 0) {
      throw new IllegalArgumentException("'" + text + "' is not a whole number of bytes");
    }
    try {
      return bytes.longValueExact();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("'" + text + "' is larger than 2^63 bytes", e);
    }
  }

  /**
   * Formats bytes for people with a binary unit and one decimal: {@code 0 B}, {@code 512 B},
   * {@code 1.5 KiB}, {@code 16.0 GiB}.
   */
  public static String format(long bytes) {
    if (bytes < 1024) return bytes + " B";
    String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = bytes;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }
}
