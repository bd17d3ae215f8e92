package io.vnpu.kube.hami.codec;

/**
 * How empty container entries of {@code devices-to-allocate} are decoded; both HAMi encoders write
 * the same bytes, only decoding differs (protocol spec section 3.2).
 */
public enum DecodeVariant {
  /**
   * HAMi 61c6cbe (plugin v1.3.0): empty entries are skipped, so entry positions no longer match
   * container positions.
   */
  SKIP_EMPTY,
  /**
   * HAMi 5f0adaa (plugin v1.4.0): empty entries are kept so an entry's index is its container's
   * index. Unlike 5f0adaa, the empty text after the final {@code ;} is not an entry, so re-encoding
   * does not grow the annotation (bug 9.10).
   */
  PRESERVE_EMPTY
}
