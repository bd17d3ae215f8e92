package io.vnpu.kube.hami.alloc;

import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Priority;
import io.vnpu.api.model.Units;
import io.vnpu.api.slice.ContainerEdits;
import io.vnpu.api.slice.Mount;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.RegionToCreate;
import io.vnpu.api.slice.SliceDecision;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SlicePlan;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.kube.hami.codec.ContainerDevice;
import io.vnpu.kube.hami.codec.RuntimeInfo;
import io.vnpu.kube.hami.devices.NodeDevices;
import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The soft-split (hami-vnpu-core) response (protocol spec section 4.3), pure: the eight mounts in
 * upstream order (the seventh, {@code /hami-shared-region}, is the agent's compute-registry
 * directory mounted read-only when the agent creates the regions), {@code ASCEND_VISIBLE_DEVICES}, {@code NPU_MEM_QUOTA} and {@code NPU_PRIORITY}
 * from the first device that has them (what libvnpu reads), the first card's global registry
 * {@code NPU_GLOBAL_SHM_PATH} and {@code NPU_LOCAL_SHM_PATH}. {@link #quotas} gives the per-device
 * limits for the quota region (every device, not the first only: bug 9.6); {@link #plan} puts
 * both into the slice plan.
 */
public final class SoftSplitResponses {
  private SoftSplitResponses() {}

  /**
   * The soft-split plan: the decision (one soft quota per device, {@link #quotas}), the edits of
   * {@link #build}, and the container's quota region {@code <containerDir>/vnpu_local_shmem} with
   * the registries under {@link SoftSplitLayout#CONTAINER_SHARED_REGION}.
   *
   * @param containerDir host directory of this container ({@link SoftSplitLayout#containerDir})
   * @throws AllocationException as {@link #build} and {@link #quotas}
   */
  public static SlicePlan plan(List<ContainerDevice> devices, Map<String, RuntimeInfo> info,
      NodeDevices npus, String runtimeInfoKey, SoftSplitLayout layout, Path containerDir)
      throws AllocationException {
    return plan(devices, info, npus, runtimeInfoKey, layout, containerDir, false);
  }

  /**
   * As {@link #plan(List, Map, NodeDevices, String, SoftSplitLayout, Path)}; with
   * {@code agentRegistry} the shared-region mount is the agent's registry directory, read-only
   * ({@link #mounts(SoftSplitLayout, Path, boolean)}).
   */
  public static SlicePlan plan(List<ContainerDevice> devices, Map<String, RuntimeInfo> info,
      NodeDevices npus, String runtimeInfoKey, SoftSplitLayout layout, Path containerDir, boolean agentRegistry)
      throws AllocationException {
    ContainerAllocation a = build(devices, info, npus, runtimeInfoKey, layout, containerDir, agentRegistry);
    List<SliceDevice> quotas = quotas(devices, info, npus, runtimeInfoKey);
    return SlicePlan.editsOnly(new SliceDecision(quotas), new ContainerEdits(a.envs(), a.mounts(), a.devices()))
        .withRegion(new RegionToCreate(containerDir.resolve(SoftSplitLayout.LOCAL_SHMEM_FILE), quotas,
            SoftSplitLayout.CONTAINER_SHARED_REGION));
  }

  /**
   * @param containerDir host directory of this container ({@link SoftSplitLayout#containerDir})
   * @throws AllocationException as {@link HardSplitResponses#build}
   */
  public static ContainerAllocation build(List<ContainerDevice> devices, Map<String, RuntimeInfo> info,
      NodeDevices npus, String runtimeInfoKey, SoftSplitLayout layout, Path containerDir)
      throws AllocationException {
    return build(devices, info, npus, runtimeInfoKey, layout, containerDir, false);
  }

  /**
   * As {@link #build(List, Map, NodeDevices, String, SoftSplitLayout, Path)} with the mounts of
   * {@link #mounts(SoftSplitLayout, Path, boolean)}.
   */
  public static ContainerAllocation build(List<ContainerDevice> devices, Map<String, RuntimeInfo> info,
      NodeDevices npus, String runtimeInfoKey, SoftSplitLayout layout, Path containerDir, boolean agentRegistry)
      throws AllocationException {
    List<Npu> resolved = HardSplitResponses.resolve(devices, npus, runtimeInfoKey);
    Map<String, String> envs = new LinkedHashMap<>();
    envs.put(AscendEnv.VISIBLE_DEVICES, HardSplitResponses.phyIds(resolved));
    firstOf(devices, info, true).ifPresent(m -> envs.put(AscendEnv.NPU_MEM_QUOTA, Integer.toString(m)));
    firstOf(devices, info, false).ifPresent(c -> envs.put(AscendEnv.NPU_PRIORITY, Integer.toString(c)));
    envs.put(AscendEnv.NPU_GLOBAL_SHM_PATH, SoftSplitLayout.CONTAINER_SHARED_REGION + "/"
        + resolved.get(0).phyId() + "_global_registry");
    envs.put(AscendEnv.NPU_LOCAL_SHM_PATH,
        SoftSplitLayout.CONTAINER_SHMEM_DIR + "/" + SoftSplitLayout.LOCAL_SHMEM_FILE);
    return new ContainerAllocation(envs, mounts(layout, containerDir, agentRegistry), List.of(), Map.of(), List.of());
  }

  /** The eight mounts of section 4.3, in order, as upstream (the limiter writes the shared directory). */
  public static List<Mount> mounts(SoftSplitLayout layout, Path containerDir) {
    return mounts(layout, containerDir, false);
  }

  /**
   * The eight mounts of section 4.3, in order. With {@code agentRegistry} (the agent creates the
   * quota regions and registers the containers) the seventh is the agent's compute-registry
   * directory {@link SoftSplitLayout#registryDir()}, <b>read-only</b>: nothing a container writes
   * may reach the registries its neighbours read. Otherwise it is upstream's shared directory,
   * read-write, which hami-vnpu-core itself writes.
   */
  public static List<Mount> mounts(SoftSplitLayout layout, Path containerDir, boolean agentRegistry) {
    Mount shared = agentRegistry
        ? new Mount(SoftSplitLayout.CONTAINER_SHARED_REGION, layout.registryDir().toString(), true)
        : new Mount(SoftSplitLayout.CONTAINER_SHARED_REGION, layout.sharedRegionDir(), false);
    String limiterDir = layout.limiterDir();
    return List.of(
        new Mount(layout.npuSmi(), layout.npuSmi(), true),
        new Mount(layout.ascendInstallInfo(), layout.ascendInstallInfo(), true),
        new Mount(layout.driverLibDir(), layout.driverLibDir(), true),
        new Mount(layout.driverVersionInfo(), layout.driverVersionInfo(), true),
        new Mount(SoftSplitLayout.CONTAINER_LIMITER_DIR, limiterDir, true),
        new Mount(SoftSplitLayout.CONTAINER_LD_SO_PRELOAD, limiterDir + "/" + LimiterFiles.PRELOAD, true),
        shared,
        new Mount(SoftSplitLayout.CONTAINER_SHMEM_DIR, containerDir.toString(), false));
  }

  /**
   * Per-device limits: each device's RuntimeInfo {@code memory} (else the MiB the scheduler
   * charged in devices-to-allocate, else unlimited) and {@code core} (else the charged percent),
   * normal priority. The core percent is the container's <b>upper limit</b> of that NPU's AI-core
   * time (cap) and also its weight, so busy containers whose percents add up to more than 100 split
   * the NPU in proportion to them; 0 = no AI-core limit (compute not enforced).
   *
   * @throws AllocationException for out-of-range values (memory of 0 MiB or less, or more than the
   *     NPU's HBM; core outside 0..100), naming the annotation and the device
   */
  public static List<SliceDevice> quotas(List<ContainerDevice> devices, Map<String, RuntimeInfo> info,
      NodeDevices npus, String runtimeInfoKey) throws AllocationException {
    List<Npu> resolved = HardSplitResponses.resolve(devices, npus, runtimeInfoKey);
    List<SliceDevice> out = new ArrayList<>(devices.size());
    for (int i = 0; i < devices.size(); i++) {
      ContainerDevice d = devices.get(i);
      RuntimeInfo ri = info.get(d.uuid());
      int memMib = ri != null && ri.memory().isPresent() ? ri.memory().getAsInt() : d.usedMemMib();
      int core = ri != null && ri.core().isPresent() ? ri.core().getAsInt() : d.usedCores();
      // pod owners can write these annotations: 0 means "no limit" in the region, so a forged 0
      // would hand out the whole NPU; more than the NPU has is no quota either
      String from = ri != null && ri.memory().isPresent() ? "annotation " + runtimeInfoKey : "devices-to-allocate";
      if (memMib <= 0) {
        throw new AllocationException(from + ": memory " + memMib + " MiB of device " + d.uuid()
            + ": a soft-split quota must be > 0 MiB (0 would be an unlimited region); refused");
      }
      long hbm = resolved.get(i).hbmBytes();
      if (hbm > 0 && memMib * Units.MIB > hbm) {
        throw new AllocationException(from + ": memory " + memMib + " MiB of device " + d.uuid()
            + " exceeds the NPU's " + (hbm / Units.MIB) + " MiB HBM; refused");
      }
      if (core < 0 || core > 100) {
        throw new AllocationException("annotation " + runtimeInfoKey + ": core " + core
            + " of device " + d.uuid() + " is not a percent in 0..100");
      }
      out.add(new SliceDevice(NpuRef.of(resolved.get(i)),
          new SliceShare.SoftQuota(memMib * Units.MIB, core, core, Priority.NORMAL)));
    }
    return out;
  }

  private static OptionalInt firstOf(List<ContainerDevice> devices, Map<String, RuntimeInfo> info,
      boolean memory) {
    for (ContainerDevice d : devices) {
      RuntimeInfo ri = info.get(d.uuid());
      if (ri == null) continue;
      OptionalInt v = memory ? ri.memory() : ri.core();
      if (v.isPresent()) return v;
    }
    return OptionalInt.empty();
  }
}
