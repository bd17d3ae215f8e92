package io.vnpu.kube.hami;

import io.vnpu.api.model.Npu;
import io.vnpu.kube.hami.codec.RegisterDevice;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.hami.config.VDeviceCount;
import io.vnpu.kube.hami.devices.NodeDevices;
import java.util.ArrayList;
import java.util.List;

/**
 * The register annotation's devices for a snapshot (protocol spec section 2.2): index = position,
 * count = VDeviceCount, devmem = {@code memoryAllocatable}, devcore = {@code aiCore} or 100 on a
 * hami-vnpu-core node (core is then a percent), NetworkID by type and index.
 */
public final class RegisterPayload {
  private RegisterPayload() {}

  public static List<RegisterDevice> of(
      NodeDevices devices, HamiChipSettings chip, HamiNodeSettings node) {
    int count = VDeviceCount.of(chip, node);
    int devcore = node.hamiVnpuCore() ? 100 : chip.aiCore();
    List<RegisterDevice> out = new ArrayList<>(devices.npus().size());
    for (int i = 0; i < devices.npus().size(); i++) {
      Npu n = devices.npus().get(i);
      out.add(
          RegisterDevice.ascend(
              n.uuid(),
              i,
              count,
              (int) chip.memoryAllocatableMib(),
              devcore,
              chip.commonWord(),
              n.health().healthy()));
    }
    return out;
  }
}
