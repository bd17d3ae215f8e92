package io.vnpu.api.model;

import java.util.Objects;

/**
 * A vNPU template: a fixed partition of one chip that DCMI can create (hard slicing), as named in
 * HAMi {@code device-config.yaml} {@code vnpus[].templates[]} and by {@code dcmi_create_vdevice}.
 *
 * @param name template name, e.g. {@code vir05_1c_16g}
 * @param memoryMib device memory of the partition in MiB
 * @param aiCores AI Cores of the partition
 * @param aiCpus AI CPUs of the partition (0 when the config does not say)
 */
public record VnpuTemplate(String name, long memoryMib, int aiCores, int aiCpus) {
  public VnpuTemplate {
    Objects.requireNonNull(name, "name");
    if (memoryMib <= 0) throw new IllegalArgumentException("memoryMib must be > 0: " + memoryMib);
    if (aiCores <= 0) throw new IllegalArgumentException("aiCores must be > 0: " + aiCores);
    if (aiCpus < 0) throw new IllegalArgumentException("aiCpus must be >= 0: " + aiCpus);
  }
}
