package io.vnpu.kube.hami.config;

import io.vnpu.api.config.ChipConfig;

/**
 * How many tasks may share one NPU (protocol spec section 6.2): {@link ChipConfig#vDeviceCount(int,
 * long, java.util.List)} over the HAMi settings.
 */
public final class VDeviceCount {
  private VDeviceCount() {}

  public static int of(HamiChipSettings chip, HamiNodeSettings node) {
    return ChipConfig.vDeviceCount(
        node.vDeviceCount(), chip.memoryAllocatableMib(), chip.templates());
  }
}
