package io.vnpu.api.model;

import java.util.Objects;
import java.util.Optional;

/**
 * A slice handed to one container.
 *
 * @param device      the physical NPU it is carved from
 * @param kind        whole card, hard vNPU or soft quota
 * @param memoryBytes device memory granted, in bytes
 * @param compute     AI-core share granted
 * @param weight      relative weight among busy soft slices on the same NPU
 * @param priority    launch priority class
 * @param vnpu        the vNPU backing a {@link SliceKind#HARD} slice, empty otherwise
 */
public record AllocatedSlice(Npu device, SliceKind kind, long memoryBytes, ComputeShare compute,
    int weight, Priority priority, Optional<Vnpu> vnpu) {
  public AllocatedSlice {
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(compute, "compute");
    Objects.requireNonNull(priority, "priority");
    Objects.requireNonNull(vnpu, "vnpu");
    if (memoryBytes <= 0) throw new IllegalArgumentException("memoryBytes must be > 0: " + memoryBytes);
    if (kind == SliceKind.HARD && vnpu.isEmpty()) {
      throw new IllegalArgumentException("a HARD slice needs its vNPU");
    }
  }
}
