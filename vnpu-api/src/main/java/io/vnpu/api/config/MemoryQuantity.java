package io.vnpu.api.config;

import io.vnpu.api.model.MemorySize;
import io.vnpu.api.model.MemorySizeException;
import java.math.BigInteger;
import java.util.regex.Pattern;

/**
 * Reads a memory size of the configuration: HAMi's rules over {@link MemorySize}. A plain integer
 * is MiB, as HAMi reads it (also when quoted: a number without suffix is never bytes here); a
 * Kubernetes quantity with a suffix ({@code 16Gi}, {@code 16384Mi}, {@code 1.5Gi}, {@code 64G}) is
 * converted to MiB and must come out as a whole number of MiB that fits HAMi's 32-bit fields.
 */
final class MemoryQuantity {

  /** Largest MiB value HAMi can carry: {@code devmem} and {@code usedmem} are Go int32. */
  static final long MAX_MIB = Integer.MAX_VALUE;

  /**
   * A plain integer at or above this (16 TiB when read as MiB) is no chip's memory: it was written
   * in bytes. A byte count of any usable template (64 MiB and up) lies above it.
   */
  static final long BYTES_THRESHOLD = 1L << 24;

  private static final long MIB = 1L << 20;
  private static final Pattern PLAIN = Pattern.compile("[+-]?[0-9]+");

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
   * @throws InvalidSize when it is not an integer or quantity, not positive, surely bytes, not a
   *     whole number of MiB, or too large for HAMi's 32-bit fields
   */
  static Mib parse(String text) throws InvalidSize {
    String s = text.trim();
    // big-number parsing is quadratic in the digits; no valid size needs more than a few dozen
    if (s.length() > MAX_TEXT_CHARS) {
      throw new InvalidSize(
          "is "
              + s.length()
              + " characters long, not a memory size (at most "
              + MAX_TEXT_CHARS
              + ")");
    }
    if (PLAIN.matcher(s).matches()) {
      BigInteger v = new BigInteger(s);
      if (v.signum() <= 0) throw new InvalidSize("must be > 0 MiB");
      if (v.compareTo(BigInteger.valueOf(BYTES_THRESHOLD)) >= 0)
        throw new InvalidSize(bytesHint(v));
      return new Mib(v.longValueExact(), false);
    }
    // anything else must be a Kubernetes quantity with a suffix (the syntax is MemorySize's)
    MemorySize size;
    try {
      if (s.isEmpty() || !Character.isLetter(s.charAt(s.length() - 1)))
        throw new MemorySizeException(s, "");
      size = MemorySize.parse(s, MemorySize.PlainUnit.BYTES);
    } catch (MemorySizeException e) {
      if (e.reason().equals("is negative")) throw new InvalidSize("must be > 0 MiB");
      if (e.reason().startsWith("is larger than")) {
        throw new InvalidSize(
            e.reason() + ", which overflows the 32-bit MiB field HAMi uses (max " + MAX_MIB + ")");
      }
      if (e.reason().contains("not a whole number of bytes")) {
        throw new InvalidSize(
            "is not a whole number of MiB; use a binary suffix (Mi, Gi) or an integer of MiB");
      }
      throw new InvalidSize("not an integer number of MiB nor a quantity such as 16Gi or 16384Mi");
    }
    if (size.isZero()) throw new InvalidSize("must be > 0 MiB");
    if (!size.wholeMib()) {
      throw new InvalidSize(
          "is "
              + size.exactMib().toPlainString()
              + " MiB, not a whole number of MiB; use a binary suffix (Mi, Gi) or an integer of MiB");
    }
    if (size.mib() > MAX_MIB) {
      throw new InvalidSize(
          "is "
              + size.mib()
              + " MiB, which overflows the 32-bit MiB field HAMi uses"
              + " (max "
              + MAX_MIB
              + ")");
    }
    return new Mib(size.mib(), true);
  }

  private static String bytesHint(BigInteger v) {
    BigInteger[] qr = v.divideAndRemainder(BigInteger.valueOf(MIB));
    String head = "is surely bytes, not MiB (sizes are MiB as in HAMi)";
    if (qr[1].signum() != 0) return head + "; write the size in MiB or as a quantity such as 16Gi";
    return head
        + "; "
        + v
        + " bytes = "
        + qr[0]
        + " MiB: write "
        + qr[0]
        + " or "
        + quantity(qr[0]);
  }

  /** The shortest exact binary quantity for a MiB count, e.g. 16384 to {@code 16Gi}. */
  static String quantity(BigInteger mib) {
    return MemorySize.mibQuantity(mib);
  }
}
