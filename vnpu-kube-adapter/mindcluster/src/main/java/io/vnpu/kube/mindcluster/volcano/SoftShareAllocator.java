package io.vnpu.kube.mindcluster.volcano;

import io.vnpu.api.model.Priority;
import io.vnpu.api.model.Units;
import io.vnpu.api.slice.Mount;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.RegionToCreate;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.kube.limiter.LimiterUnavailableException;
import io.vnpu.kube.mindcluster.alloc.ContainerAllocator;
import io.vnpu.kube.mindcluster.alloc.ContainerResponses;
import io.vnpu.kube.mindcluster.alloc.DirectAllocator;
import io.vnpu.kube.mindcluster.devices.AdvertisedDevice;
import io.vnpu.kube.mindcluster.devices.DeviceCatalog;
import io.vnpu.kube.mindcluster.devices.NodeChips;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ComputeRegistrations;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.resource.ContainerRegionDirectory;
import io.vnpu.quota.files.HostFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Allocate of share copies on a soft-share node ({@code -shareDevCount=100},
 * {@code -softShareDevConfigDir}): the kubelet's IDs give the chips (as {@link DirectAllocator});
 * the pod Volcano placed with the softShareDev annotations ({@link SoftShareQuota}; among pending
 * pods of this resource, the smallest {@code predicate-time}) gives the quotas, which our quota
 * region and limiter enforce instead of vCANN-RT.
 *
 * <p>Per Allocate, under the node lock: quotas parsed and checked (a bad value refuses, naming
 * the annotation and value, before anything is consumed); the limiter verified (else refused,
 * naming the file); the container's directory and region created and the container registered in
 * the compute registry of each chip ({@link ComputeRegistrations}); the pod claimed (its
 * {@code predicate-time} consumed, {@code huawei.com/AscendReal} written); on a failed claim the
 * registration and the directory are removed. No soft-share pod pending → the plain whole-chip answer.
 *
 * <p>The aicoreQuota is the container's <b>upper limit</b> of each chip's AI-core time (cap) and
 * its weight: busy containers whose quotas add up to more than 100 % split the chip in proportion
 * to their quotas, and none ever gets more than its quota.
 */
public final class SoftShareAllocator implements ContainerAllocator {
  private static final Logger LOG = LoggerFactory.getLogger(SoftShareAllocator.class);

  private final VolcanoPods pods;
  private final Supplier<NodeChips> chips;
  private final DeviceCatalog catalog;
  private final ContainerResponses responses;
  private final SoftShareLimiter limiter;
  private final ComputeRegistrations registrations;
  private final Object nodeLock;

  /**
   * @param registrations the compute registrations under {@link SoftShareLimiter#registryDir()} (one
   *     instance per agent: it holds the registry files open)
   */
  public SoftShareAllocator(VolcanoPods pods, Supplier<NodeChips> chips, DeviceCatalog catalog,
      ContainerResponses responses, SoftShareLimiter limiter, ComputeRegistrations registrations, Object nodeLock) {
    this.pods = Objects.requireNonNull(pods, "pods");
    this.chips = Objects.requireNonNull(chips, "chips");
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.responses = Objects.requireNonNull(responses, "responses");
    this.limiter = Objects.requireNonNull(limiter, "limiter");
    this.registrations = Objects.requireNonNull(registrations, "registrations");
    this.nodeLock = Objects.requireNonNull(nodeLock, "nodeLock");
  }

  @Override
  public ContainerAllocation allocate(String resourceName, List<String> deviceIds) throws AllocationException {
    List<AdvertisedDevice> devices = DirectAllocator.resolve(catalog, chips.get(), resourceName, deviceIds);
    synchronized (nodeLock) {
      for (int attempt = 1; attempt <= VolcanoAllocator.ATTEMPTS; attempt++) {
        Optional<PendingPod> next = pods.live().stream()
            .filter(SoftShareQuota::requested)
            .map(p -> PendingPod.of(p, resourceName, resourceName)).flatMap(Optional::stream)
            .filter(p -> p.requestsExactly(resourceName, deviceIds.size()))
            .min(PendingPod.ORDER);
        if (next.isEmpty()) {
          return DirectAllocator.respond(responses, devices, Map.of());
        }
        PendingPod pod = next.get();
        Optional<ContainerAllocation> done = soft(pod, resourceName, deviceIds, devices);
        if (done.isPresent()) return done.get();
      }
    }
    throw new AllocationException("Allocate " + resourceName + " " + deviceIds + ": the soft-share pod was"
        + " deleted or changed in " + VolcanoAllocator.ATTEMPTS + " rounds in a row; the kubelet will retry");
  }

  /** The soft-share answer for this pod; empty when the pod went away or changed before its claim. */
  private Optional<ContainerAllocation> soft(PendingPod pod, String resourceName, List<String> deviceIds,
      List<AdvertisedDevice> devices) throws AllocationException {
    List<AdvertisedDevice> distinct = devices.stream()
        .filter(distinctBy(d -> d.chip().npu().phyId())).toList();
    long hbmMib = distinct.stream().mapToLong(d -> d.chip().npu().hbmBytes() / Units.MIB)
        .filter(m -> m > 0).min().orElse(0);
    SoftShareQuota quota = SoftShareQuota.of(pod.pod(), hbmMib);
    try {
      limiter.gate().verify();
    } catch (LimiterUnavailableException e) {
      throw new AllocationException("soft share for pod " + pod.key() + " refused: limiter " + e.getMessage(), e);
    }
    Path dir = containerDir(pod, deviceIds.get(0));
    List<SliceDevice> slice = new ArrayList<>();
    for (AdvertisedDevice d : distinct) {
      slice.add(new SliceDevice(NpuRef.of(d.chip().npu()),
          new SliceShare.SoftQuota(quota.hbmMib() * Units.MIB, quota.aicorePercent(), quota.aicorePercent(),
              Priority.NORMAL)));
    }
    long key;
    try {
      key = ContainerRegionDirectory.createRegistered(limiter.regionRoot(), dir, limiter.regions(),
          new RegionToCreate(dir.resolve(SoftShareLimiter.REGION_FILE), slice, SoftShareLimiter.CONTAINER_REGISTRY_DIR),
          registrations, pod.key());
    } catch (IOException | RuntimeException e) {
      HostFiles.deleteQuietly(dir);
      throw new AllocationException("prepare quota region in " + dir + " for pod " + pod.key() + ": "
          + e.getMessage(), e);
    }
    VolcanoPods.Claim claim;
    try {
      claim = pods.claim(pod.pod(), pod.predicateTime(), Map.of(VolcanoKeys.ASCEND_REAL,
          String.join(",", distinct.stream().map(d -> d.chip().name()).toList())));
    } catch (AllocationException e) {
      discard(dir, key);
      throw e;
    }
    if (claim != VolcanoPods.Claim.DONE) {
      discard(dir, key);
      LOG.info("soft-share pod {} changed before it was claimed; choosing again", pod.key());
      return Optional.empty();
    }
    ContainerAllocation base = DirectAllocator.respond(responses, devices, Map.of());
    Map<String, String> env = new LinkedHashMap<>(base.envs());
    env.put("NPU_LOCAL_SHM_PATH", SoftShareLimiter.CONTAINER_REGION_DIR + "/" + SoftShareLimiter.REGION_FILE);
    env.put(io.vnpu.quota.env.LimiterEnv.MEM_QUOTA, Long.toString(quota.hbmMib()));
    List<Mount> mounts = new ArrayList<>(base.mounts());
    String libDir = Path.of(limiter.limiter().containerLibraryPath()).getParent().toString();
    mounts.add(new Mount(libDir, limiter.limiter().hostDir().toString(), true));
    mounts.add(new Mount(SoftShareLimiter.CONTAINER_LD_SO_PRELOAD, limiter.limiter().preload().toString(), true));
    mounts.add(new Mount(SoftShareLimiter.CONTAINER_REGION_DIR, dir.toString(), false));
    // the registries are the agent's: nothing a container writes may reach what its neighbours read
    mounts.add(new Mount(SoftShareLimiter.CONTAINER_REGISTRY_DIR, limiter.registryDir().toString(), true));
    LOG.info("Allocate {} {}: pod {} soft-shares {} with {} MiB HBM and {}% AI Core", resourceName, deviceIds,
        pod.key(), distinct.stream().map(d -> d.chip().name()).toList(), quota.hbmMib(), quota.aicorePercent());
    return Optional.of(new ContainerAllocation(env, mounts, base.devices(), base.annotations(), base.cdiDevices()));
  }

  /** Undoes a prepared container: its registry entries, then its directory (the sweep retries both). */
  private void discard(Path dir, long key) {
    try {
      registrations.unregister(key);
    } catch (IOException | RuntimeException e) {
      LOG.warn("compute registry entry {} not removed ({}); the soft-share sweep removes it", Long.toHexString(key),
          e.getMessage());
    }
    HostFiles.deleteQuietly(dir);
  }

  private Path containerDir(PendingPod pod, String firstDeviceId) throws AllocationException {
    String name = pod.uid() + "_" + firstDeviceId;
    if (pod.uid().isEmpty() || name.indexOf('/') >= 0 || name.indexOf('\0') >= 0 || name.startsWith(".")) {
      throw new AllocationException("pod " + pod.key() + ": UID \"" + pod.uid() + "\" and device "
          + firstDeviceId + " do not make a directory name");
    }
    return limiter.regionRoot().resolve(name);
  }

  private static <T> java.util.function.Predicate<T> distinctBy(java.util.function.Function<T, Object> key) {
    java.util.Set<Object> seen = new java.util.HashSet<>();
    return t -> seen.add(key.apply(t));
  }
}
