package io.vnpu.api.health;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * Health of the virtual AI-core devices of one chip in dynamic vNPU mode (MindCluster {@code
 * huawei.com/npu-core}: one kubelet device per AI Core, vnpu DCMI spec section 3.2): when the chip
 * is unhealthy every one of its AI-core devices is; otherwise only as many free devices as the
 * fault takes are reported unhealthy, the highest free indices first, and devices a workload holds
 * stay healthy so that it is not disturbed.
 */
public final class AiCoreDeviceHealth {
  private AiCoreDeviceHealth() {}

  /**
   * @param chipHealthy the chip's health ({@link ChipHealth#healthy()})
   * @param aiCores AI Cores of the chip (devices 0 .. aiCores-1)
   * @param used indices of the chip's AI-core devices allocated to workloads
   * @param coresTaken AI Cores a fault makes unusable on an otherwise healthy chip (0 for none)
   * @return health per device index, {@code aiCores} entries
   * @throws IllegalArgumentException for negative counts or indices out of range
   */
  public static List<Boolean> map(
      boolean chipHealthy, int aiCores, Set<Integer> used, int coresTaken) {
    if (aiCores < 0 || coresTaken < 0) {
      throw new IllegalArgumentException(
          "aiCores and coresTaken must be >= 0: " + aiCores + ", " + coresTaken);
    }
    for (int u : used) {
      if (u < 0 || u >= aiCores)
        throw new IllegalArgumentException("AI-core device " + u + " not in 0.." + (aiCores - 1));
    }
    if (!chipHealthy) return Collections.nCopies(aiCores, false);
    List<Boolean> out = new ArrayList<>(Collections.nCopies(aiCores, true));
    int left = coresTaken;
    for (int i = aiCores - 1; i >= 0 && left > 0; i--) {
      if (used.contains(i)) continue;
      out.set(i, false);
      left--;
    }
    return List.copyOf(out);
  }
}
