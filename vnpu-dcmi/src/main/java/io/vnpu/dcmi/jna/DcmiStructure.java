package io.vnpu.dcmi.jna;

import com.sun.jna.Structure;

/**
 * Base of the DCMI struct mappings: natural (gcc) alignment, field names equal to the C header's so
 * the ABI test can compare {@link #offsetOf(String)} with {@code offsetof} in C.
 */
public abstract class DcmiStructure extends Structure {

  protected DcmiStructure() {
    super();
  }

  /** A view of native memory owned by the driver (e.g. a callback argument). */
  protected DcmiStructure(com.sun.jna.Pointer p) {
    super(p);
  }

  /** Byte offset of a field, as laid out by JNA. */
  public int offsetOf(String field) {
    return fieldOffset(field);
  }

  /** Decodes a NUL-padded ASCII byte array. */
  public static String text(byte[] bytes) {
    int n = 0;
    while (n < bytes.length && bytes[n] != 0) {
      n++;
    }
    return new String(bytes, 0, n, java.nio.charset.StandardCharsets.US_ASCII);
  }
}
