package io.vnpu.kube.metrics;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * Metric names exported in addition to vnpu's own, so dashboards built for another exporter work.
 */
public enum CompatNames {
  /**
   * HAMi's names (HAMi v2.10 and ascend-device-plugin v1.4 {@code :9395}): {@code
   * hami_host_gpu_memory_used_bytes}, {@code hami_host_gpu_utilization_ratio} (labels {@code node,
   * device_index, device_uuid, device_type}), {@code hami_vgpu_memory_used_bytes}, {@code
   * hami_vgpu_memory_limit_bytes}, {@code hami_container_device_utilization_ratio} (labels {@code
   * namespace, pod, container, vdevice_index, device_uuid}).
   */
  HAMI("hami"),
  /**
   * MindCluster npu-exporter's names: {@code npu_chip_info_hbm_used_memory}, {@code
   * npu_chip_info_hbm_total_memory} (MiB), {@code npu_chip_info_utilization} (percent), {@code
   * npu_chip_info_health_status}, {@code npu_chip_info_error_code}, {@code vnpu_pod_used_memory},
   * {@code vnpu_pod_total_memory} (MiB), {@code vnpu_pod_aicore_utilization} (percent); chip labels
   * {@code id, model_name, vdie_id}, pod labels plus {@code namespace, pod_name, container_name}.
   */
  NPU_EXPORTER("npu-exporter");

  private final String flag;

  CompatNames(String flag) {
    this.flag = flag;
  }

  /** The spelling of {@code --metrics-compat}. */
  public String flag() {
    return flag;
  }

  /**
   * Parses a comma-separated {@code --metrics-compat} value ({@code hami}, {@code npu-exporter});
   * empty means none.
   *
   * @throws IllegalArgumentException naming the flag and the unknown value
   */
  public static Set<CompatNames> parse(String value) {
    Set<CompatNames> out = EnumSet.noneOf(CompatNames.class);
    for (String part : value.split(",")) {
      String p = part.strip().toLowerCase(Locale.ROOT);
      if (p.isEmpty()) continue;
      CompatNames found = null;
      for (CompatNames c : values()) if (c.flag.equals(p)) found = c;
      if (found == null) {
        throw new IllegalArgumentException(
            "--metrics-compat = "
                + value
                + ": unknown name set \""
                + part.strip()
                + "\" (allowed: hami, npu-exporter)");
      }
      out.add(found);
    }
    return out;
  }
}
