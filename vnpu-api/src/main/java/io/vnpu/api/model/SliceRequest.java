package io.vnpu.api.model;

import java.util.Objects;

/**
 * What a workload asks of one NPU.
 *
 * @param memoryMib device memory in MiB ({@code huawei.com/<commonWord>-memory} is in MiB too)
 * @param compute   AI-core share (percent) or AI-core count
 * @param weight    relative weight among busy slices on the same NPU (1 or more)
 * @param priority  launch priority class
 */
public record SliceRequest(long memoryMib, ComputeShare compute, int weight, Priority priority) {
  public SliceRequest {
    Objects.requireNonNull(compute, "compute");
    Objects.requireNonNull(priority, "priority");
    if (memoryMib <= 0) throw new IllegalArgumentException("memoryMib must be > 0: " + memoryMib);
    if (weight < 1) throw new IllegalArgumentException("weight must be >= 1: " + weight);
  }
}
