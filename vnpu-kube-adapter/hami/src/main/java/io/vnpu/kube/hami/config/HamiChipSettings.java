package io.vnpu.kube.hami.config;

import io.vnpu.api.config.ChipConfig;
import io.vnpu.api.model.VnpuTemplate;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The part of one HAMi {@code device-config.yaml} {@code vnpus.configs[]} entry the plugin uses
 * (protocol spec section 5.2).
 *
 * @param chipName DCMI chip name the entry matches, e.g. {@code 910B3}
 * @param commonWord naming root, e.g. {@code Ascend910B3}
 * @param resourceName kubelet resource, e.g. {@code huawei.com/Ascend910B3}
 * @param memoryAllocatableMib advertised device memory ({@code devmem}), MiB
 * @param memoryCapacityMib largest request accepted, MiB
 * @param aiCore advertised {@code devcore} on hard-split nodes
 * @param templates vNPU templates, kept sorted by memory ascending
 */
public record HamiChipSettings(
    String chipName,
    String commonWord,
    String resourceName,
    long memoryAllocatableMib,
    long memoryCapacityMib,
    int aiCore,
    List<VnpuTemplate> templates) {
  public HamiChipSettings {
    Objects.requireNonNull(chipName, "chipName");
    Objects.requireNonNull(commonWord, "commonWord");
    Objects.requireNonNull(resourceName, "resourceName");
    if (memoryAllocatableMib <= 0 || memoryAllocatableMib > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "memoryAllocatable of "
              + commonWord
              + " must be in 1.."
              + Integer.MAX_VALUE
              + " MiB: "
              + memoryAllocatableMib);
    }
    templates =
        templates.stream().sorted(Comparator.comparingLong(VnpuTemplate::memoryMib)).toList();
  }

  /** The plugin's view of a loaded {@code vnpus.configs[]} entry. */
  public static HamiChipSettings from(ChipConfig c) {
    return new HamiChipSettings(
        c.chipName(),
        c.commonWord(),
        c.resourceName(),
        c.memoryAllocatableMib(),
        c.memoryCapacityMib(),
        c.chip().aiCores(),
        c.templates());
  }
}
