package io.vnpu.api.config;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a memory size of the configuration: a plain integer is MiB, as HAMi reads it (also when
 * quoted: a number without suffix is never bytes here); a Kubernetes quantity with a suffix
 * ({@code 16Gi}, {@code 16384Mi}, {@code 1.5Gi}, {@code 64G}) is converted to MiB and must come
 * out as a whole number of MiB.
 */
final class MemoryQuantity {

  /** Largest MiB value HAMi can carry: {@code devmem} and {@code usedmem} are Go int32. */
  static final long MAX_MIB = Integer.MAX_VALUE;

  /**
   * A plain integer at or above this (16 TiB when read as MiB) is no chip's memory: it was
   * written in bytes. A byte count of any usable template (64 MiB and up) lies above it.
   */
  static final long BYTES_THRESHOLD = 1L << 24;

  private static final long MIB = 1L << 20;
  private static final Pattern PLAIN = Pattern.compile("[+-]?[0-9]+");
  private static final Pattern QUANTITY =
      Pattern.compile("([+-]?)([0-9]+(?:\\.[0-9]+)?|\\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)");
  private static final Map<String, BigDecimal> FACTOR = Map.ofEntries(
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

  /** A size in MiB and whether it was written as a quantity (HAMi itself reads only integers). */
  record Mib(long mib, boolean quantity) {}

  /** The value is not a usable memory size; the message says why and how to fix it. */
  static final class InvalidSize extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidSize(String message) {
      super(message);
    }
  }

  /** Longest scalar read as a size; longer ones are refused before any number parsing. */
  static final int MAX_TEXT_CHARS = 64;

  private MemoryQuantity() {}

  /**
   * Parses a memory size.
   *
   * @param text the scalar as written
   * @return the size in MiB, &gt; 0 and &le; {@link #MAX_MIB}
   * @throws InvalidSize when it is not an integer or quantity, not positive, surely bytes,
   *                     not a whole number of MiB, or too large for HAMi's 32-bit fields
   */
  static Mib parse(String text) throws InvalidSize {
    String s = text.trim();
    // big-number parsing is quadratic in the digits; no valid size needs more than a few dozen
    if (s.length() > MAX_TEXT_CHARS) {
      throw new InvalidSize("is " + s.length() + " characters long, not a memory size (at most "
          + MAX_TEXT_CHARS + ")");
    }
    if (PLAIN.matcher(s).matches()) {
      BigInteger v = new BigInteger(s);
      if (v.signum() <= 0) throw new InvalidSize("must be > 0 MiB");
      if (v.compareTo(BigInteger.valueOf(BYTES_THRESHOLD)) >= 0) throw new InvalidSize(bytesHint(v));
      return new Mib(v.longValueExact(), false);
    }
    Matcher m = QUANTITY.matcher(s);
    if (!m.matches()) {
      throw new InvalidSize("not an integer number of MiB nor a quantity such as 16Gi or 16384Mi");
    }
    BigDecimal bytes = new BigDecimal(m.group(2)).multiply(FACTOR.get(m.group(3)));
    if (m.group(1).equals("-") || bytes.signum() == 0) throw new InvalidSize("must be > 0 MiB");
    BigDecimal mib = bytes.divide(BigDecimal.valueOf(MIB));
    if (mib.stripTrailingZeros().scale() > 0) {
      throw new InvalidSize("is " + mib.stripTrailingZeros().toPlainString()
          + " MiB, not a whole number of MiB; use a binary suffix (Mi, Gi) or an integer of MiB");
    }
    BigInteger whole = mib.toBigIntegerExact();
    if (whole.compareTo(BigInteger.valueOf(MAX_MIB)) > 0) {
      throw new InvalidSize("is " + whole + " MiB, which overflows the 32-bit MiB field HAMi uses"
          + " (max " + MAX_MIB + ")");
    }
    return new Mib(whole.longValueExact(), true);
  }

  private static String bytesHint(BigInteger v) {
    BigInteger[] qr = v.divideAndRemainder(BigInteger.valueOf(MIB));
    String head = "is surely bytes, not MiB (sizes are MiB as in HAMi)";
    if (qr[1].signum() != 0) return head + "; write the size in MiB or as a quantity such as 16Gi";
    return head + "; " + v + " bytes = " + qr[0] + " MiB: write " + qr[0] + " or "
        + quantity(qr[0]);
  }

  /** The shortest exact binary quantity for a MiB count, e.g. 16384 to {@code 16Gi}. */
  static String quantity(BigInteger mib) {
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
}
