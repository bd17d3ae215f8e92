package io.vnpu.api.slice;

import java.util.Objects;

/** One NPU of a slice and the share of it the slice gets. */
public record SliceDevice(NpuRef npu, SliceShare share) {
  public SliceDevice {
    Objects.requireNonNull(npu, "npu");
    Objects.requireNonNull(share, "share");
  }

  /** The soft quota of this device. @throws IllegalStateException when the share is not soft */
  public SliceShare.SoftQuota softQuota() {
    if (share instanceof SliceShare.SoftQuota q) return q;
    throw new IllegalStateException(
        "device " + npu.uuid() + " has a " + share.kind() + " share, not a soft quota");
  }
}
