package io.vnpu.api.model;

import java.util.Objects;

/**
 * A vNPU that exists on a physical NPU (created from a template).
 *
 * @param vnpuId vNPU ID as DCMI numbers it (the {@code N} of {@code /dev/vdavinciN})
 * @param parentLogicId logic ID of the physical NPU it lives on
 * @param templateName template it was created from, e.g. {@code vir05_1c_16g}
 * @param memoryMib its device memory in MiB
 * @param aiCores its AI Cores
 * @param inUse true when a container process has it open (DCMI {@code is_container_used})
 */
public record Vnpu(
    int vnpuId,
    int parentLogicId,
    String templateName,
    long memoryMib,
    int aiCores,
    boolean inUse) {
  public Vnpu {
    Objects.requireNonNull(templateName, "templateName");
  }
}
