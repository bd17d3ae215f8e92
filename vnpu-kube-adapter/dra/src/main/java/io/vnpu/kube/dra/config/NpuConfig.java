package io.vnpu.kube.dra.config;

import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.SharingPolicy;

/**
 * Our opaque per-claim (or per-class) device configuration, {@code config[].opaque.parameters} with
 * {@code driver} = this driver:
 *
 * <pre>
 * apiVersion: npu.vnpu.io/v1alpha1
 * kind: NpuConfig
 * sharing: soft          # soft | hard | whole: what the share must be (checked against the chip)
 * computeWeight: 50      # 1..10000, weight among busy shares of the chip (default: the cores charged)
 * computeCap: 0          # 0..100 percent ceiling of AI-core time, 0 = none (default: the cores charged)
 * priority: high         # high | normal (default normal)
 * memoryOnly: false      # true: only memory is enforced, no compute limiting
 * policy: elastic        # fixed-share | elastic | best-effort (docs/sharing-policies.md; default:
 *                        # the DeviceClass configuration's, else fixed-share)
 * </pre>
 *
 * Every field is optional; null = not set here (a later entry or the default decides).
 *
 * @param sharing expected sharing mode
 * @param computeWeight compute weight 1..10000
 * @param computeCap AI-core ceiling in percent 0..100
 * @param priority launch priority class
 * @param memoryOnly memory enforcement only
 * @param policy sharing policy of the AI-core share
 */
public record NpuConfig(
    Sharing sharing,
    Integer computeWeight,
    Integer computeCap,
    Priority priority,
    Boolean memoryOnly,
    SharingPolicy policy) {

  /** API group and version of {@code parameters}. */
  public static final String API_VERSION = "npu.vnpu.io/v1alpha1";

  /** Kind of {@code parameters}. */
  public static final String KIND = "NpuConfig";

  /** Nothing set. */
  public static final NpuConfig EMPTY = new NpuConfig(null, null, null, null, null, null);

  /** Sharing mode a claim asks for. */
  public enum Sharing {
    SOFT,
    HARD,
    WHOLE
  }

  /** This configuration with the fields {@code later} sets replaced (later entries win). */
  public NpuConfig overriddenBy(NpuConfig later) {
    return new NpuConfig(
        later.sharing != null ? later.sharing : sharing,
        later.computeWeight != null ? later.computeWeight : computeWeight,
        later.computeCap != null ? later.computeCap : computeCap,
        later.priority != null ? later.priority : priority,
        later.memoryOnly != null ? later.memoryOnly : memoryOnly,
        later.policy != null ? later.policy : policy);
  }

  /** Whether only memory is enforced. */
  public boolean isMemoryOnly() {
    return Boolean.TRUE.equals(memoryOnly);
  }
}
