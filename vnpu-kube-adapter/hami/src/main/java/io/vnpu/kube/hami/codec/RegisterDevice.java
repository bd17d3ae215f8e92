package io.vnpu.kube.hami.codec;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * One element of the node register annotation {@code hami.io/node-register-<cw>} (HAMi {@code
 * DeviceInfo}, protocol spec section 2.2).
 *
 * @param id die-ID UUID of the NPU
 * @param index 0-based position in the (filtered) device list
 * @param count max concurrent tasks on the NPU (VDeviceCount)
 * @param devmem advertised device memory in MiB ({@code memoryAllocatable})
 * @param devcore advertised compute: config {@code aiCore}, or 100 (percent) on a hami-vnpu-core
 *     node
 * @param type commonWord, e.g. {@code Ascend910B3}
 * @param numa NUMA node (the plugin always sends 0)
 * @param mode device mode (empty for Ascend)
 * @param health true when healthy
 * @param deviceVendor vendor string (empty for Ascend)
 * @param networkId {@code custominfo.NetworkID}, present only for {@code Ascend910*} types
 */
public record RegisterDevice(
    String id,
    int index,
    int count,
    int devmem,
    int devcore,
    String type,
    int numa,
    String mode,
    boolean health,
    String deviceVendor,
    OptionalInt networkId) {
  public RegisterDevice {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(deviceVendor, "deviceVendor");
    Objects.requireNonNull(networkId, "networkId");
  }

  /**
   * The device as the Ascend plugin publishes it: numa 0, no mode or vendor, and a NetworkID
   * derived from type and index ({@link NetworkId#of(String, int)}).
   */
  public static RegisterDevice ascend(
      String id, int index, int count, int devmem, int devcore, String type, boolean health) {
    return new RegisterDevice(
        id, index, count, devmem, devcore, type, 0, "", health, "", NetworkId.of(type, index));
  }
}
