package io.vnpu.kube.softslice;

import io.vnpu.api.model.Priority;
import io.vnpu.api.model.Units;
import io.vnpu.api.slice.SharingPolicy;
import java.util.Objects;
import java.util.Optional;

/**
 * What the scheduler charged one device of a Kubernetes soft slice: the most the slice may get.
 * HAMi: the container's entry of {@code hami.io/<cw>-devices-to-allocate} ({@code usedmem} MiB,
 * {@code usedcores} %); MindCluster: the pod's {@code huawei.com/scheduler.softShareDev.*Quota}
 * annotations Volcano placed it by; DRA: the result's {@code consumedCapacity}.
 *
 * @param source where the charge was read, for messages (e.g. {@code consumedCapacity})
 * @param memoryBytes device memory charged, bytes (&gt; 0)
 * @param corePct AI-core percent charged, 0..100; 0 = the scheduler accounts no AI Core for this
 *     slice (HAMi without a core request), which then is memory only
 * @param priority the highest launch priority the slice may have ({@code NORMAL} unless an
 *     administrator's setting, such as a DeviceClass configuration, grants more)
 * @param policy the sharing policy the slice was placed with ({@link SharingPolicy}: MindCluster's
 *     {@code huawei.com/scheduler.softShareDev.policy}, a DeviceClass configuration); empty = none
 *     named, which is fixed-share: the charged percent is also the ceiling
 */
public record SoftCharge(
    String source,
    long memoryBytes,
    int corePct,
    Priority priority,
    Optional<SharingPolicy> policy) {
  public SoftCharge {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(priority, "priority");
    Objects.requireNonNull(policy, "policy");
    if (memoryBytes <= 0 || corePct < 0 || corePct > 100) {
      throw new IllegalArgumentException(
          "use SoftCharge.of: " + memoryBytes + " bytes, " + corePct + " %");
    }
  }

  /**
   * The charge, checked: a Kubernetes soft slice refuses 0 MiB (the region would be unlimited; only
   * {@code vnpu run} on a host makes unlimited regions) and more than the chip's HBM.
   *
   * @param chipHbmBytes the chip's HBM, bytes; 0 = unknown (no upper bound)
   * @throws SoftSliceRefusedException naming {@code source}, the field and the value
   */
  public static SoftCharge of(
      String source, long memoryBytes, int corePct, Priority priority, long chipHbmBytes)
      throws SoftSliceRefusedException {
    if (memoryBytes <= 0) {
      throw new SoftSliceRefusedException(
          source
              + " memory = "
              + memoryBytes / Units.MIB
              + " MiB: a Kubernetes soft"
              + " slice must be > 0 MiB (0 would be an unlimited region); refused");
    }
    if (chipHbmBytes > 0 && memoryBytes > chipHbmBytes) {
      throw new SoftSliceRefusedException(
          source
              + " memory = "
              + memoryBytes / Units.MIB
              + " MiB: more than the"
              + " chip's "
              + chipHbmBytes / Units.MIB
              + " MiB HBM; refused");
    }
    if (corePct < 0 || corePct > 100) {
      throw new SoftSliceRefusedException(
          source + " cores = " + corePct + ": not a percent in 0..100; refused");
    }
    return new SoftCharge(source, memoryBytes, corePct, priority, Optional.empty());
  }

  /** This charge placed with sharing policy {@code p}. */
  public SoftCharge withPolicy(SharingPolicy p) {
    return new SoftCharge(source, memoryBytes, corePct, priority, Optional.of(p));
  }
}
