package io.vnpu.kube.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Units;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Per-NPU series, read from {@link NpuTelemetry} at every scrape. Labels are the NPU's stable
 * identity only: {@code node}, {@code npu_uuid} (die-ID UUID), {@code phy_id}.
 *
 * <ul>
 *   <li>{@code vnpu_npu_hbm_total_bytes}, {@code vnpu_npu_hbm_used_bytes}
 *   <li>{@code vnpu_npu_aicore_utilization_ratio} (0..1)
 *   <li>{@code vnpu_npu_healthy} (1 healthy, 0 not), {@code vnpu_npu_fault_code} (first driver
 *       fault code, 0 none)
 *   <li>{@code vnpu_npu_vnpus} (hard vNPUs on the NPU)
 * </ul>
 */
public final class NpuCollector implements MultiCollector {
  private final String node;
  private final String deviceType;
  private final NpuTelemetry telemetry;
  private final Set<CompatNames> compat;

  /**
   * @param node this node's name
   * @param deviceType chip type for HAMi's {@code device_type} and npu-exporter's {@code
   *     model_name}, e.g. {@code Ascend910B3} (the chip's commonWord)
   */
  public NpuCollector(
      String node, String deviceType, NpuTelemetry telemetry, Set<CompatNames> compat) {
    this.node = Objects.requireNonNull(node, "node");
    this.deviceType = Objects.requireNonNull(deviceType, "deviceType");
    this.telemetry = Objects.requireNonNull(telemetry, "telemetry");
    this.compat = Set.copyOf(compat);
  }

  @Override
  public MetricSnapshots collect() {
    Families f =
        new Families()
            .gauge("vnpu_npu_hbm_total_bytes", "HBM capacity of the NPU in bytes.")
            .gauge("vnpu_npu_hbm_used_bytes", "HBM in use on the NPU in bytes (all processes).")
            .gauge("vnpu_npu_aicore_utilization_ratio", "AI Core utilisation of the NPU, 0..1.")
            .gauge("vnpu_npu_healthy", "1 when the NPU may be handed to workloads, 0 when not.")
            .gauge(
                "vnpu_npu_fault_code",
                "First fault code the driver reports for the NPU, 0 when none.")
            .gauge("vnpu_npu_vnpus", "Hard-split vNPUs currently on the NPU.")
            .gauge("hami_host_gpu_memory_used_bytes", "HAMi name: device memory in use in bytes.")
            .gauge("hami_host_gpu_utilization_ratio", "HAMi name: device core utilisation, 0..1.")
            .gauge("npu_chip_info_hbm_total_memory", "npu-exporter name: HBM capacity in MiB.")
            .gauge("npu_chip_info_hbm_used_memory", "npu-exporter name: HBM in use in MiB.")
            .gauge(
                "npu_chip_info_utilization", "npu-exporter name: AI Core utilisation in percent.")
            .gauge("npu_chip_info_health_status", "npu-exporter name: 1 healthy, 0 unhealthy.")
            .gauge("npu_chip_info_error_code", "npu-exporter name: first fault code, 0 when none.");
    boolean hami = compat.contains(CompatNames.HAMI);
    boolean exporter = compat.contains(CompatNames.NPU_EXPORTER);
    for (Npu npu : telemetry.npus()) {
      Labels own =
          Labels.of("node", node, "npu_uuid", npu.uuid(), "phy_id", Integer.toString(npu.phyId()));
      Labels h =
          Labels.of(
              "node",
              node,
              "device_index",
              Integer.toString(npu.phyId()),
              "device_uuid",
              npu.uuid(),
              "device_type",
              deviceType);
      Labels e =
          Labels.of(
              "id", Integer.toString(npu.phyId()), "model_name", deviceType, "vdie_id", npu.uuid());
      f.add("vnpu_npu_hbm_total_bytes", npu.hbmBytes(), own);
      if (exporter) f.add("npu_chip_info_hbm_total_memory", (double) npu.hbmBytes() / Units.MIB, e);
      OptionalLong used = telemetry.hbmUsedBytes(npu);
      if (used.isPresent()) {
        f.add("vnpu_npu_hbm_used_bytes", used.getAsLong(), own);
        if (hami) f.add("hami_host_gpu_memory_used_bytes", used.getAsLong(), h);
        if (exporter)
          f.add("npu_chip_info_hbm_used_memory", (double) used.getAsLong() / Units.MIB, e);
      }
      OptionalDouble util = telemetry.aiCoreUtilization(npu);
      if (util.isPresent()) {
        f.add("vnpu_npu_aicore_utilization_ratio", util.getAsDouble(), own);
        if (hami) f.add("hami_host_gpu_utilization_ratio", util.getAsDouble(), h);
        if (exporter) f.add("npu_chip_info_utilization", util.getAsDouble() * 100, e);
      }
      Optional<DeviceHealth> health = telemetry.health(npu);
      if (health.isPresent()) {
        double healthy = health.get().healthy() ? 1 : 0;
        f.add("vnpu_npu_healthy", healthy, own);
        f.add("vnpu_npu_fault_code", health.get().faultCode(), own);
        if (exporter) {
          f.add("npu_chip_info_health_status", healthy, e);
          f.add("npu_chip_info_error_code", health.get().faultCode(), e);
        }
      }
      OptionalInt vnpus = telemetry.vnpuCount(npu);
      if (vnpus.isPresent()) f.add("vnpu_npu_vnpus", vnpus.getAsInt(), own);
    }
    return f.build();
  }
}
