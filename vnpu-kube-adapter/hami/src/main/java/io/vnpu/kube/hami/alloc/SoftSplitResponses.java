package io.vnpu.kube.hami.alloc;

import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Priority;
import io.vnpu.api.model.Units;
import io.vnpu.api.slice.ContainerEdits;
import io.vnpu.api.slice.Mount;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.RegionToCreate;
import io.vnpu.api.slice.SharingPolicy;
import io.vnpu.api.slice.SliceDecision;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SlicePlan;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.kube.errors.Shown;
import io.vnpu.kube.hami.codec.ContainerDevice;
import io.vnpu.kube.hami.codec.RuntimeInfo;
import io.vnpu.kube.hami.devices.NodeDevices;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.softslice.SoftAsk;
import io.vnpu.kube.softslice.SoftCharge;
import io.vnpu.kube.softslice.SoftSliceLayout;
import io.vnpu.kube.softslice.SoftSliceRefusedException;
import io.vnpu.kube.softslice.SoftSliceRule;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The soft-split (hami-vnpu-core) response (protocol spec section 4.3), pure: the eight mounts in
 * upstream order (the seventh, {@code /hami-shared-region}, is the agent's compute-registry
 * directory mounted read-only when the agent creates the regions), {@code ASCEND_VISIBLE_DEVICES},
 * {@code NPU_MEM_QUOTA} and {@code NPU_PRIORITY} from the first device that has them (what libvnpu
 * reads), the first card's global registry {@code NPU_GLOBAL_SHM_PATH} and {@code
 * NPU_LOCAL_SHM_PATH}. {@link #quotas} gives the per-device limits for the quota region (every
 * device, not the first only: bug 9.6); {@link #plan} puts both into the slice plan.
 */
public final class SoftSplitResponses {
  private SoftSplitResponses() {}

  /**
   * vnpu's pod annotation for the sharing policy of a hami-core container's AI-core share ({@code
   * docs/sharing-policies.md}). HAMi's annotations have no such key; its {@code core} is a ceiling,
   * i.e. fixed-share. The annotation, which the pod's owner writes, can only lower that: {@code
   * fixed-share} or {@code best-effort} ({@link SoftSliceRule}).
   */
  public static final String SHARING_POLICY_ANNOTATION = "vnpu.io/sharing-policy";

  /**
   * The sharing policy a pod's {@value #SHARING_POLICY_ANNOTATION} asks, empty when absent.
   *
   * @param who the pod, e.g. {@code pod ns/name}, for the message
   * @throws AllocationException naming the pod, the annotation and the value when it is not one
   */
  public static Optional<SharingPolicy> askedPolicy(String who, Map<String, String> podAnnotations)
      throws AllocationException {
    String v = podAnnotations.get(SHARING_POLICY_ANNOTATION);
    if (v == null) return Optional.empty();
    Optional<SharingPolicy> p = SharingPolicy.fromWireName(v.strip());
    if (p.isEmpty()) {
      throw new AllocationException(
          who
              + ": annotation "
              + SHARING_POLICY_ANNOTATION
              + " = "
              + Shown.string(v)
              + ": not "
              + SharingPolicy.wireNames());
    }
    return p;
  }

  /**
   * The soft-split plan: the decision (one soft quota per device, {@link #quotas}), the edits of
   * {@link #build}, and the container's quota region {@code <containerDir>/vnpu_local_shmem} with
   * the registries under {@link SoftSplitLayout#CONTAINER_SHARED_REGION}.
   *
   * @param containerDir host directory of this container ({@link SoftSplitLayout#containerDir})
   * @param agentRegistry the shared-region mount is the agent's registry directory, read-only
   *     ({@link #mounts(SoftSplitLayout, Path, boolean)})
   * @param policy the pod's asked sharing policy ({@link #askedPolicy})
   * @throws AllocationException as {@link #build} and {@link #quotas}
   */
  public static SlicePlan plan(
      List<ContainerDevice> devices,
      Map<String, RuntimeInfo> info,
      NodeDevices npus,
      String runtimeInfoKey,
      SoftSplitLayout layout,
      Path containerDir,
      boolean agentRegistry,
      Optional<SharingPolicy> policy)
      throws AllocationException {
    ContainerAllocation a =
        build(devices, info, npus, runtimeInfoKey, layout, containerDir, agentRegistry);
    List<SliceDevice> quotas = quotas(devices, info, npus, runtimeInfoKey, policy);
    return SlicePlan.editsOnly(
            new SliceDecision(quotas), new ContainerEdits(a.envs(), a.mounts(), a.devices()))
        .withRegion(
            new RegionToCreate(
                containerDir.resolve(SoftSplitLayout.LOCAL_SHMEM_FILE),
                quotas,
                SoftSplitLayout.CONTAINER_SHARED_REGION));
  }

  /**
   * @param containerDir host directory of this container ({@link SoftSplitLayout#containerDir})
   * @throws AllocationException as {@link HardSplitResponses#build}
   */
  public static ContainerAllocation build(
      List<ContainerDevice> devices,
      Map<String, RuntimeInfo> info,
      NodeDevices npus,
      String runtimeInfoKey,
      SoftSplitLayout layout,
      Path containerDir)
      throws AllocationException {
    return build(devices, info, npus, runtimeInfoKey, layout, containerDir, false);
  }

  /**
   * As {@link #build(List, Map, NodeDevices, String, SoftSplitLayout, Path)} with the mounts of
   * {@link #mounts(SoftSplitLayout, Path, boolean)}.
   */
  public static ContainerAllocation build(
      List<ContainerDevice> devices,
      Map<String, RuntimeInfo> info,
      NodeDevices npus,
      String runtimeInfoKey,
      SoftSplitLayout layout,
      Path containerDir,
      boolean agentRegistry)
      throws AllocationException {
    List<Npu> resolved = HardSplitResponses.resolve(devices, npus, runtimeInfoKey);
    Map<String, String> envs = new LinkedHashMap<>();
    envs.put(AscendEnv.VISIBLE_DEVICES, HardSplitResponses.phyIds(resolved));
    firstOf(devices, info, true)
        .ifPresent(m -> envs.put(AscendEnv.NPU_MEM_QUOTA, Integer.toString(m)));
    firstOf(devices, info, false)
        .ifPresent(c -> envs.put(AscendEnv.NPU_PRIORITY, Integer.toString(c)));
    envs.put(
        AscendEnv.NPU_GLOBAL_SHM_PATH,
        SoftSplitLayout.CONTAINER_SHARED_REGION
            + "/"
            + resolved.get(0).phyId()
            + "_global_registry");
    envs.put(AscendEnv.NPU_LOCAL_SHM_PATH, layout.slices().containerRegionFile());
    return new ContainerAllocation(
        envs, mounts(layout, containerDir, agentRegistry), List.of(), Map.of(), List.of());
  }

  /**
   * The eight mounts of section 4.3, in order, as upstream (the limiter writes the shared
   * directory).
   */
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
  public static List<Mount> mounts(
      SoftSplitLayout layout, Path containerDir, boolean agentRegistry) {
    SoftSliceLayout slices = layout.slices();
    List<Mount> out =
        new ArrayList<>(
            List.of(
                new Mount(layout.npuSmi(), layout.npuSmi(), true),
                new Mount(layout.ascendInstallInfo(), layout.ascendInstallInfo(), true),
                new Mount(layout.driverLibDir(), layout.driverLibDir(), true),
                new Mount(layout.driverVersionInfo(), layout.driverVersionInfo(), true)));
    if (agentRegistry) {
      // the one soft-slice mechanism's mounts, which are upstream's order: limiter, preload,
      // registries (read-only), the container's own directory
      out.addAll(slices.mounts(containerDir));
    } else {
      out.addAll(slices.sharedMounts().subList(0, 2));
      out.add(new Mount(SoftSplitLayout.CONTAINER_SHARED_REGION, layout.sharedRegionDir(), false));
      out.add(slices.regionMount(containerDir));
    }
    return out;
  }

  /**
   * Per-device limits by {@link SoftSliceRule}: what the scheduler charged in devices-to-allocate
   * ({@code usedmem} MiB, {@code usedcores} %) is the most the device gets; the container's own
   * RuntimeInfo entry ({@code memory}, {@code core}; pod annotations, which the pod's owner can
   * write) may lower it, never raise it. The core percent is the container's <b>upper limit</b> of
   * that NPU's AI-core time (cap) and its weight, so busy containers whose percents add up to more
   * than 100 split the NPU in proportion to them; a charge of 0 % is memory only (HAMi's upstream
   * meaning of a pod without a core request). Normal priority.
   *
   * @param info the container's own RuntimeInfo entries ({@link
   *     io.vnpu.kube.hami.codec.ContainerRuntimeInfo}), by UUID
   * @throws AllocationException naming the device, the annotation and the value: 0 MiB, more than
   *     the NPU's HBM, or an entry asking for more than was charged
   */
  public static List<SliceDevice> quotas(
      List<ContainerDevice> devices,
      Map<String, RuntimeInfo> info,
      NodeDevices npus,
      String runtimeInfoKey)
      throws AllocationException {
    return quotas(devices, info, npus, runtimeInfoKey, Optional.empty());
  }

  /**
   * As {@link #quotas(List, Map, NodeDevices, String)}, with the sharing policy the pod asked
   * ({@link #askedPolicy}; the charge is fixed-share, so only fixed-share or best-effort pass).
   */
  public static List<SliceDevice> quotas(
      List<ContainerDevice> devices,
      Map<String, RuntimeInfo> info,
      NodeDevices npus,
      String runtimeInfoKey,
      Optional<SharingPolicy> policy)
      throws AllocationException {
    List<Npu> resolved = HardSplitResponses.resolve(devices, npus, runtimeInfoKey);
    List<SliceDevice> out = new ArrayList<>(devices.size());
    for (int i = 0; i < devices.size(); i++) {
      ContainerDevice d = devices.get(i);
      RuntimeInfo ri = info.get(d.uuid());
      SliceShare.SoftQuota q;
      try {
        SoftCharge charge =
            SoftCharge.of(
                "devices-to-allocate",
                (long) d.usedMemMib() * Units.MIB,
                d.usedCores(),
                Priority.NORMAL,
                resolved.get(i).hbmBytes());
        SoftAsk ask = SoftAsk.none("annotation " + runtimeInfoKey);
        if (ri != null && ri.memory().isPresent())
          ask = ask.memory("memory", (long) ri.memory().getAsInt() * Units.MIB);
        if (ri != null && ri.core().isPresent()) {
          ask = ask.weight("core", ri.core().getAsInt()).cap("core", ri.core().getAsInt());
        }
        if (policy.isPresent()) ask = ask.policy("and " + SHARING_POLICY_ANNOTATION, policy.get());
        q = SoftSliceRule.grant(charge, ask);
      } catch (SoftSliceRefusedException e) {
        throw new AllocationException("device " + d.uuid() + ": " + e.getMessage());
      }
      out.add(new SliceDevice(NpuRef.of(resolved.get(i)), q));
    }
    return out;
  }

  private static OptionalInt firstOf(
      List<ContainerDevice> devices, Map<String, RuntimeInfo> info, boolean memory) {
    for (ContainerDevice d : devices) {
      RuntimeInfo ri = info.get(d.uuid());
      if (ri == null) continue;
      OptionalInt v = memory ? ri.memory() : ri.core();
      if (v.isPresent()) return v;
    }
    return OptionalInt.empty();
  }
}
