package io.vnpu.quota.model;

import io.vnpu.quota.layout.RegionLayout;

/**
 * Who decided a slice's sizes (the region's {@code sized_by} header field, minor 3), and so whether
 * a live resize may change them. The one rule: only {@link #HOST} slices are resized; a slice a
 * scheduler charged for keeps the sizes it was charged.
 */
public enum SizedBy {
  /**
   * A scheduler charged for the sizes: the DRA plugin (ResourceClaim), the HAMi and MindCluster
   * device plugins (pod annotations), the limiter from its environment, or any file older than
   * minor 3.
   */
  SCHEDULER(RegionLayout.SIZED_BY_SCHEDULER),
  /** Host slicing ({@code vnpu run}, {@code HostSlices}): the slice's owner may resize it live. */
  HOST(RegionLayout.SIZED_BY_HOST);

  private final int code;

  SizedBy(int code) {
    this.code = code;
  }

  /** The header value. */
  public int code() {
    return code;
  }

  /**
   * The value of a header field; anything but {@link #HOST}'s code is {@link #SCHEDULER} (never
   * resized).
   */
  public static SizedBy decode(int code) {
    return code == RegionLayout.SIZED_BY_HOST ? HOST : SCHEDULER;
  }
}
