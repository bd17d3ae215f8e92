package io.vnpu.dcmi;

import java.util.Objects;

/**
 * One vNPU as {@code dcmi_get_device_info(VDEV_MNG, GET_VDEV_RESOURCE)} reports it.
 *
 * @param vdevId vNPU ID (the {@code N} of {@code /dev/vdavinciN})
 * @param template template name, e.g. {@code vir05_1c_16g}
 * @param aiCores AI Cores of the vNPU
 * @param aiCpus AI CPUs of the vNPU (device AI CPUs)
 * @param memoryMb device memory in MB
 * @param inUse {@code is_container_used}
 * @param vfgId virtual function group
 * @param containerId container ID the driver recorded, 0 when none
 */
public record VdevInfo(
    int vdevId,
    String template,
    float aiCores,
    int aiCpus,
    long memoryMb,
    boolean inUse,
    int vfgId,
    long containerId) {
  public VdevInfo {
    Objects.requireNonNull(template, "template");
  }
}
