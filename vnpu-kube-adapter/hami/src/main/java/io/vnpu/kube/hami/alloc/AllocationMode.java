package io.vnpu.kube.hami.alloc;

import io.vnpu.kube.hami.codec.HamiNames;
import java.util.Map;

/** How a pod's containers get their NPUs (protocol spec section 4). */
public enum AllocationMode {
  /** Whole card or hard split (vNPU from a template). */
  HARD_OR_WHOLE,
  /** Soft split by the in-container limiter (hami-vnpu-core). */
  SOFT;

  /**
   * The pod annotation {@code huawei.com/vnpu-mode} decides when present ({@code hami-core} exactly
   * → {@link #SOFT}); a pod that says nothing follows the node's mode (as upstream PR #106 and HAMi
   * PR #2035 do, so plugin and scheduler agree).
   */
  public static AllocationMode of(Map<String, String> podAnnotations, boolean nodeHamiVnpuCore) {
    String mode = podAnnotations.get(HamiNames.VNPU_MODE);
    if (mode == null) return nodeHamiVnpuCore ? SOFT : HARD_OR_WHOLE;
    return HamiNames.VNPU_MODE_HAMI_CORE.equals(mode) ? SOFT : HARD_OR_WHOLE;
  }
}
