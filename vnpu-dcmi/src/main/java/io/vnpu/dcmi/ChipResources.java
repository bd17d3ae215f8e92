package io.vnpu.dcmi;

import java.util.List;

/**
 * Total or free vNPU resources of one chip ({@code dcmi_get_device_info(VDEV_MNG, 1 or 2)}).
 *
 * @param aiCores AI Cores (the driver reports a float)
 * @param aiCpus device AI CPUs
 * @param memoryMb device memory in MB
 * @param vdevIds IDs of the existing vNPUs (totals only; empty for free resources)
 */
public record ChipResources(float aiCores, int aiCpus, long memoryMb, List<Integer> vdevIds) {
  public ChipResources {
    vdevIds = List.copyOf(vdevIds);
  }
}
