package io.vnpu.dcmi;

import java.util.Objects;

/**
 * Chip identity from {@code dcmi_get_device_chip_info_v2} (or v1 on older drivers).
 *
 * @param type chip type, e.g. {@code Ascend}
 * @param name chip name, e.g. {@code 910B3}, {@code 310P3}, {@code Ascend910} (A3)
 * @param version chip version, e.g. {@code V1}
 * @param aiCores AI Core count the driver reports
 * @param npuName v2 NPU name, empty from v1
 */
public record ChipInfo(String type, String name, String version, int aiCores, String npuName) {
  public ChipInfo {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(npuName, "npuName");
  }
}
