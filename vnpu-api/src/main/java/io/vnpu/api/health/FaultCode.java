package io.vnpu.api.health;

import java.util.Locale;

/**
 * An NPU fault code as the driver reports it ({@code dcmi_dms_fault_event.event_id}, {@code
 * dcmi_get_device_errorcode_v2}) or as MindCluster synthesises it (card drop {@code 0x40F84E00},
 * link down {@code 0x81078603}, hang {@code 0x200001002}, which is wider than 32 bits). Codes
 * compare by value: {@code 80e01801}, {@code 0x80E01801} and {@code 0X80e01801} are the same code.
 *
 * @param value the code, 0 .. 2^40 (unsigned)
 */
public record FaultCode(long value) implements Comparable<FaultCode> {
  /** Synthetic code for a card that dropped off the bus ({@code dcmi_get_device_health} -8012). */
  public static final FaultCode CARD_DROP = new FaultCode(0x40F84E00L);

  /** Synthetic code for a parameter-plane (RoCE) link that is down. */
  public static final FaultCode LINK_DOWN = new FaultCode(0x81078603L);

  private static final long MAX = (1L << 40) - 1;

  public FaultCode {
    if (value <= 0 || value > MAX) {
      throw new IllegalArgumentException("fault code out of range: 0x" + Long.toHexString(value));
    }
  }

  /**
   * Parses a hex code, case-insensitive, with or without {@code 0x}; surrounding blanks ignored.
   *
   * @throws IllegalArgumentException naming the text when it is not a hex code of 1..10 digits or
   *     is zero
   */
  public static FaultCode parse(String text) {
    String t = text.strip();
    if (t.length() > 2 && (t.startsWith("0x") || t.startsWith("0X"))) t = t.substring(2);
    if (t.isEmpty() || t.length() > 10 || !t.chars().allMatch(FaultCode::isHex)) {
      throw new IllegalArgumentException("'" + text + "' is not a hex fault code (e.g. 80E01801)");
    }
    long v = Long.parseLong(t, 16);
    if (v == 0) throw new IllegalArgumentException("'" + text + "' is not a fault code (zero)");
    return new FaultCode(v);
  }

  /** A code from a 32-bit DCMI field read as a signed Java int. */
  public static FaultCode ofUnsigned(int raw) {
    return new FaultCode(raw & 0xFFFFFFFFL);
  }

  private static boolean isHex(int c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  /** Upper-case hex without {@code 0x}, at least 8 digits: the form of {@code faultCode.json}. */
  public String hex() {
    return String.format(Locale.ROOT, "%08X", value);
  }

  @Override
  public int compareTo(FaultCode o) {
    return Long.compare(value, o.value);
  }

  @Override
  public String toString() {
    return hex();
  }
}
