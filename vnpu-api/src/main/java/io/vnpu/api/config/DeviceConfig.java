package io.vnpu.api.config;

import java.util.List;
import java.util.Optional;

/**
 * HAMi's global Ascend device configuration ({@code device-config.yaml}, key {@code vnpus}), as
 * shared by the HAMi scheduler and the device plugin.
 *
 * @param hamiVnpuCore true when soft slicing (hami-vnpu-core) is on cluster-wide ({@code
 *     vnpus.hamiVnpuCore}; false in the legacy flat-list form)
 * @param chips chip configs in file order
 */
public record DeviceConfig(boolean hamiVnpuCore, List<ChipConfig> chips) {
  public DeviceConfig {
    chips = List.copyOf(chips);
  }

  /**
   * The config the device plugin uses for a chip the driver reports: the first whose {@code
   * chipName} equals it (HAMi: fatal {@code can not find vnpu config for chip} when none).
   *
   * @param chipName chip name from DCMI, e.g. {@code 910B3}, {@code 310P3}, {@code Ascend910}
   */
  public Optional<ChipConfig> forChipName(String chipName) {
    return chips.stream().filter(c -> c.chipName().equals(chipName)).findFirst();
  }

  /** The config with that {@code commonWord}, e.g. {@code Ascend910B3} (unique in a valid file). */
  public Optional<ChipConfig> forCommonWord(String commonWord) {
    return chips.stream().filter(c -> c.commonWord().equals(commonWord)).findFirst();
  }
}
