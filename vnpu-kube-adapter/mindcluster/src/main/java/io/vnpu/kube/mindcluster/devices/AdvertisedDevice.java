package io.vnpu.kube.mindcluster.devices;

import io.vnpu.api.model.Vnpu;
import java.util.Objects;
import java.util.Optional;

/**
 * One device a MindCluster plugin advertises to the kubelet.
 *
 * @param id the device ID ({@code Ascend910-3}, {@code Ascend910-12c.3cpu.32g-100-0}, {@code
 *     Ascend310P-1-3}, {@code npu-core-5})
 * @param resourceName the extended resource it is advertised under
 * @param chip the physical chip it lives on (its health is the device's health)
 * @param vnpu the static vNPU it is, when it is one
 */
public record AdvertisedDevice(
    String id, String resourceName, ChipState chip, Optional<Vnpu> vnpu) {
  public AdvertisedDevice {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(resourceName, "resourceName");
    Objects.requireNonNull(chip, "chip");
    Objects.requireNonNull(vnpu, "vnpu");
  }

  public boolean healthy() {
    return chip.healthy();
  }
}
