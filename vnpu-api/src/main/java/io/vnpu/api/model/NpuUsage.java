package io.vnpu.api.model;

/**
 * Live use of one physical NPU, as the driver reports it (DCMI: {@code dcmi_get_device_hbm_info},
 * or {@code dcmi_get_device_memory_info_v3} on 310P, and {@code dcmi_get_device_utilization_rate}
 * for the AI Core).
 *
 * @param hbmUsedBytes device memory in use, bytes (HBM, or DDR on 310P); 0 when not reported
 * @param aiCorePercent AI Core utilisation in percent 0..100, -1 when the driver does not report it
 */
public record NpuUsage(long hbmUsedBytes, int aiCorePercent) {
  public NpuUsage {
    if (hbmUsedBytes < 0)
      throw new IllegalArgumentException("hbmUsedBytes must be >= 0: " + hbmUsedBytes);
  }
}
