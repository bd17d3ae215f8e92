package io.vnpu.api.model;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A memory size, the one value type for sizes in the SDK: bytes inside, Kubernetes quantity syntax
 * outside ({@code 16Gi}, {@code 512Mi}, {@code 1.5Gi}, {@code 64G}: binary suffixes Ki..Ei, decimal
 * suffixes k..E), MiB where HAMi's wire says MiB ({@link #mib()}, and a plain number read with
 * {@link PlainUnit#MIB}). Never negative.
 *
 * @param bytes the size in bytes, &gt;= 0
 */
public record MemorySize(long bytes) implements Comparable<MemorySize> {
  /** What a number without suffix means where it is read. */
  public enum PlainUnit {
    /** Bytes, as in a Kubernetes quantity ({@code resources.limits}, ResourceSlice capacity). */
    BYTES(1),
    /**
     * MiB, as HAMi reads its config, {@code huawei.com/<commonWord>-memory} and {@code
     * NPU_MEM_QUOTA}.
     */
    MIB(Units.MIB);

    private final long factor;

    PlainUnit(long factor) {
      this.factor = factor;
    }
  }

  /** Zero bytes (in a quota: unlimited). */
  public static final MemorySize ZERO = new MemorySize(0);

  private static final Pattern QUANTITY =
      Pattern.compile("([+-]?)([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?");

  /** Longest text {@link #parse} reads; longer text is refused before any number parsing. */
  public static final int MAX_TEXT_CHARS = 64;

  private static final Map<String, BigDecimal> FACTOR =
      Map.ofEntries(
          Map.entry("Ki", BigDecimal.valueOf(1L << 10)),
          Map.entry("Mi", BigDecimal.valueOf(1L << 20)),
          Map.entry("Gi", BigDecimal.valueOf(1L << 30)),
          Map.entry("Ti", BigDecimal.valueOf(1L << 40)),
          Map.entry("Pi", BigDecimal.valueOf(1L << 50)),
          Map.entry("Ei", BigDecimal.valueOf(1L << 60)),
          Map.entry("k", BigDecimal.TEN.pow(3)),
          Map.entry("M", BigDecimal.TEN.pow(6)),
          Map.entry("G", BigDecimal.TEN.pow(9)),
          Map.entry("T", BigDecimal.TEN.pow(12)),
          Map.entry("P", BigDecimal.TEN.pow(15)),
          Map.entry("E", BigDecimal.TEN.pow(18)));

  public MemorySize {
    if (bytes < 0) throw new IllegalArgumentException("a memory size must be >= 0 bytes: " + bytes);
  }

  /**
   * A size of {@code mib} MiB. @throws IllegalArgumentException when negative or over 2^63 bytes
   */
  public static MemorySize ofMib(long mib) {
    if (mib < 0) throw new IllegalArgumentException("a memory size must be >= 0 MiB: " + mib);
    try {
      return new MemorySize(Math.multiplyExact(mib, Units.MIB));
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(mib + " MiB is larger than 2^63 bytes", e);
    }
  }

  /**
   * Parses a quantity.
   *
   * @param text the value as written, e.g. {@code 8Gi}, {@code 1.5Gi}, {@code 4096}
   * @param plain what a number without suffix means
   * @throws MemorySizeException naming the text and saying which rule it breaks: not a quantity,
   *     negative, not a whole number of bytes, larger than 2^63 bytes
   */
  public static MemorySize parse(String text, PlainUnit plain) {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(plain, "plain");
    // big-decimal parsing is quadratic in the digits; no real size needs more than a few dozen
    if (text.length() > MAX_TEXT_CHARS) {
      throw new MemorySizeException(
          text.substring(0, MAX_TEXT_CHARS) + "...",
          "is " + text.length() + " characters long, not a size (at most " + MAX_TEXT_CHARS + ")");
    }
    Matcher m = QUANTITY.matcher(text.trim());
    if (!m.matches()) {
      throw new MemorySizeException(
          text,
          "is not a size: write a quantity such as 8Gi or 512Mi, or an integer"
              + (plain == PlainUnit.MIB ? " number of MiB" : " number of bytes"));
    }
    BigDecimal factor =
        m.group(3) == null ? BigDecimal.valueOf(plain.factor) : FACTOR.get(m.group(3));
    BigDecimal bytes =
        new BigDecimal(m.group(2).endsWith(".") ? m.group(2) + "0" : m.group(2)).multiply(factor);
    if (m.group(1).equals("-") && bytes.signum() != 0)
      throw new MemorySizeException(text, "is negative");
    if (bytes.stripTrailingZeros().scale() > 0) {
      throw new MemorySizeException(
          text,
          "is "
              + bytes.stripTrailingZeros().toPlainString()
              + " bytes, not a whole number of bytes");
    }
    try {
      return new MemorySize(bytes.longValueExact());
    } catch (ArithmeticException e) {
      throw new MemorySizeException(text, "is larger than 2^63 bytes");
    }
  }

  /** Whether the size is a whole number of MiB. */
  public boolean wholeMib() {
    return bytes % Units.MIB == 0;
  }

  /** The size in MiB, rounded down (HAMi's wire unit). */
  public long mib() {
    return bytes / Units.MIB;
  }

  /** The size in MiB as an exact number, possibly fractional (for messages). */
  public BigDecimal exactMib() {
    return new BigDecimal(bytes).divide(BigDecimal.valueOf(Units.MIB)).stripTrailingZeros();
  }

  /** Whether this is zero bytes. */
  public boolean isZero() {
    return bytes == 0;
  }

  /**
   * The shortest exact quantity with a binary suffix, e.g. {@code 16Gi}, {@code 1536Mi}, {@code
   * 100} (bytes, no suffix, when not a whole number of KiB).
   */
  public String toQuantity() {
    String[] units = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    long v = bytes;
    int u = 0;
    while (u < units.length - 1 && v != 0 && v % 1024 == 0) {
      v /= 1024;
      u++;
    }
    return v + units[u];
  }

  /**
   * For people: a binary unit and one decimal ({@code 0 B}, {@code 512 B}, {@code 1.5 KiB}, {@code
   * 16.0 GiB}).
   */
  public String format() {
    return format(bytes);
  }

  /** {@link #format()} of a byte count. */
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

  /** The shortest exact binary quantity of a MiB count, e.g. 16384 to {@code 16Gi}. */
  public static String mibQuantity(BigInteger mib) {
    String[] units = {"Mi", "Gi", "Ti", "Pi", "Ei"};
    BigInteger k = BigInteger.valueOf(1024);
    BigInteger v = mib;
    int u = 0;
    while (u < units.length - 1 && v.signum() > 0 && v.mod(k).signum() == 0) {
      v = v.divide(k);
      u++;
    }
    return v + units[u];
  }

  @Override
  public int compareTo(MemorySize other) {
    return Long.compare(bytes, other.bytes);
  }

  @Override
  public String toString() {
    return toQuantity();
  }
}
