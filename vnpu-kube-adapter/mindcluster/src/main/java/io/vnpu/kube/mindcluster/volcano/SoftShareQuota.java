package io.vnpu.kube.mindcluster.volcano;

import io.fabric8.kubernetes.api.model.Pod;
import io.vnpu.api.model.Priority;
import io.vnpu.api.model.Units;
import io.vnpu.api.slice.SharingPolicy;
import io.vnpu.kube.errors.Shown;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.softslice.SoftCharge;
import io.vnpu.kube.softslice.SoftSliceRefusedException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A pod's soft-share request (MindCluster "softShareDev", anchors section 4), read from its
 * annotations {@value #AICORE_QUOTA} (AI Core share in percent, 1..100) and {@value #HBM_QUOTA}
 * (HBM in MB, read as MiB as MindCluster's {@code MBPerGB} conversion implies, 1..the chip's HBM).
 * The values are written by the pod owner and are untrusted; Volcano placed the pod by them, so
 * they are what the scheduler charged ({@link #charge()}, where 0 MiB is refused).
 *
 * <p>The sharing policy {@value #POLICY} ({@code fixed-share}, {@code elastic} or {@code
 * best-effort}, {@code docs/sharing-policies.md}) is part of the charge too: Volcano places pods by
 * it (one policy per chip). Absent, the quota is fixed-share (a ceiling), as before the policies
 * were interpreted.
 *
 * @param aicorePercent AI Core share, percent of the chip (1..100)
 * @param hbmMib HBM limit in MiB (0..the chip's HBM; 0 is refused by {@link #charge()})
 * @param policy the sharing policy annotated, empty when none
 */
public record SoftShareQuota(int aicorePercent, long hbmMib, Optional<SharingPolicy> policy) {
  /** AI Core quota annotation, percent. */
  public static final String AICORE_QUOTA = "huawei.com/scheduler.softShareDev.aicoreQuota";

  /** HBM quota annotation, MB. */
  public static final String HBM_QUOTA = "huawei.com/scheduler.softShareDev.hbmQuota";

  /** Sharing policy annotation: fixed-share, elastic or best-effort. */
  public static final String POLICY = "huawei.com/scheduler.softShareDev.policy";

  public SoftShareQuota {
    Objects.requireNonNull(policy, "policy");
  }

  /** Whether the pod asks for soft sharing (either quota annotation present). */
  public static boolean requested(Pod pod) {
    Map<String, String> a = VolcanoPods.annotations(pod);
    return a.containsKey(AICORE_QUOTA) || a.containsKey(HBM_QUOTA);
  }

  /**
   * The pod's quotas, checked against a chip of {@code chipHbmMib} MiB (0 = unknown, no upper
   * bound).
   *
   * @throws AllocationException naming the pod, the annotation key and its value when one is
   *     missing, not a whole number, 0, or out of range, or when the policy is not one of the three
   */
  public static SoftShareQuota of(Pod pod, long chipHbmMib) throws AllocationException {
    Map<String, String> a = VolcanoPods.annotations(pod);
    String who = "pod " + pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    long core = number(who, AICORE_QUOTA, a.get(AICORE_QUOTA), 1, 100, "a percent in 1..100");
    long hbmMax = chipHbmMib > 0 ? chipHbmMib : Long.MAX_VALUE / (1L << 20);
    long hbm =
        number(
            who,
            HBM_QUOTA,
            a.get(HBM_QUOTA),
            0,
            hbmMax,
            "MB in 1.." + (chipHbmMib > 0 ? chipHbmMib + " (the chip's HBM)" : "the chip's HBM"));
    String p = a.get(POLICY);
    Optional<SharingPolicy> policy = Optional.empty();
    if (p != null) {
      policy = SharingPolicy.fromWireName(p.strip());
      if (policy.isEmpty()) {
        throw new AllocationException(
            who
                + ": annotation "
                + POLICY
                + " = "
                + Shown.string(p)
                + ": not "
                + SharingPolicy.wireNames());
      }
    }
    return new SoftShareQuota((int) core, hbm, policy);
  }

  /**
   * What the scheduler charged each chip of the share.
   *
   * @throws SoftSliceRefusedException for 0 MiB, naming the annotation
   */
  public SoftCharge charge() throws SoftSliceRefusedException {
    SoftCharge c =
        SoftCharge.of(
            "annotation " + HBM_QUOTA + " / " + AICORE_QUOTA,
            hbmMib * Units.MIB,
            aicorePercent,
            Priority.NORMAL,
            0);
    return policy.map(c::withPolicy).orElse(c);
  }

  private static final java.util.regex.Pattern WHOLE =
      java.util.regex.Pattern.compile("[+-]?[0-9]{1,18}");

  private static long number(
      String who, String key, String value, long min, long max, String expected)
      throws AllocationException {
    if (value == null) {
      throw new AllocationException(
          who
              + ": annotation "
              + key
              + " is missing: soft sharing needs "
              + AICORE_QUOTA
              + " and "
              + HBM_QUOTA);
    }
    long v;
    try {
      // as Volcano reads it (Go strconv.Atoi): ASCII digits only. Long.parseLong also takes other
      // scripts' digits ("١٠٠" = 100), a value Volcano could not have charged for
      if (!WHOLE.matcher(value.strip()).matches()) throw new NumberFormatException(value);
      v = Long.parseLong(value.strip());
    } catch (NumberFormatException e) {
      throw new AllocationException(
          who
              + ": annotation "
              + key
              + " = "
              + Shown.string(value)
              + ": not a whole number, "
              + "expected "
              + expected);
    }
    if (v < min || v > max) {
      throw new AllocationException(
          who
              + ": annotation "
              + key
              + " = "
              + Shown.string(value)
              + ": out of range, expected "
              + expected);
    }
    return v;
  }
}
