package io.vnpu.kube.metrics;

import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What the per-NPU metrics read at scrape time. Every reading is optional: a value the driver
 * cannot give is empty and its series is left out (never reported as 0). Implementations are
 * thread-safe.
 */
public interface NpuTelemetry {

  /** The NPUs of this node, ordered by logic ID. */
  List<Npu> npus();

  /** Current health, empty when the driver cannot be asked. */
  Optional<DeviceHealth> health(Npu npu);

  /** HBM in use, bytes ({@code dcmi_get_device_hbm_info} {@code memory_usage}, MiB there). */
  OptionalLong hbmUsedBytes(Npu npu);

  /**
   * AI Core utilisation as a ratio 0..1 ({@code dcmi_get_device_utilization_rate}, input type 2,
   * percent there).
   */
  OptionalDouble aiCoreUtilization(Npu npu);

  /** Hard vNPUs currently on this NPU. */
  OptionalInt vnpuCount(Npu npu);
}
