package io.vnpu.api.slice;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the node must do to hand a {@link SliceDecision} to a container: vNPUs to create, the quota
 * region to create, and the container edits (environment, mounts, device nodes), plus what only
 * some runtimes carry (CRI annotations for the device plugin, CDI device names for DRA). Adapters
 * build plans; the node side carries them out and undoes them on failure.
 *
 * @param decision what the adapter decided
 * @param vnpus vNPUs to create, in order (hard slices whose vNPU the node creates)
 * @param createdVnpuIdsEnv environment variable that receives the created vNPUs' IDs, comma-joined
 *     in the order of {@code vnpus} (HAMi: {@code ASCEND_VISIBLE_DEVICES}); empty when nothing is
 *     created or nobody needs the IDs
 * @param region the quota region to create (soft slices whose region the node creates)
 * @param edits container edits known before anything is created
 * @param annotations CRI annotations (device plugin ContainerAllocateResponse)
 * @param cdiDevices fully-qualified CDI device names, e.g. {@code vnpu.io/npu=npu0-vir02}
 */
public record SlicePlan(
    SliceDecision decision,
    List<VnpuToCreate> vnpus,
    Optional<String> createdVnpuIdsEnv,
    Optional<RegionToCreate> region,
    ContainerEdits edits,
    Map<String, String> annotations,
    List<String> cdiDevices) {
  public SlicePlan {
    Objects.requireNonNull(decision, "decision");
    vnpus = List.copyOf(vnpus);
    Objects.requireNonNull(createdVnpuIdsEnv, "createdVnpuIdsEnv");
    Objects.requireNonNull(region, "region");
    Objects.requireNonNull(edits, "edits");
    annotations = Collections.unmodifiableMap(new LinkedHashMap<>(annotations));
    cdiDevices = List.copyOf(cdiDevices);
    if (createdVnpuIdsEnv.isPresent() && vnpus.isEmpty()) {
      throw new IllegalArgumentException(
          "createdVnpuIdsEnv " + createdVnpuIdsEnv.get() + " without vNPUs to create");
    }
  }

  /** A plan that only edits the container. */
  public static SlicePlan editsOnly(SliceDecision decision, ContainerEdits edits) {
    return new SlicePlan(
        decision, List.of(), Optional.empty(), Optional.empty(), edits, Map.of(), List.of());
  }

  /** A copy that also creates {@code newRegion}. */
  public SlicePlan withRegion(RegionToCreate newRegion) {
    return new SlicePlan(
        decision, vnpus, createdVnpuIdsEnv, Optional.of(newRegion), edits, annotations, cdiDevices);
  }

  /** A copy that also creates {@code newVnpus} and publishes their IDs in {@code idsEnv}. */
  public SlicePlan withVnpus(List<VnpuToCreate> newVnpus, String idsEnv) {
    return new SlicePlan(
        decision, newVnpus, Optional.of(idsEnv), region, edits, annotations, cdiDevices);
  }
}
