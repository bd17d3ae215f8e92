package io.vnpu.kube.mindcluster.volcano;

import io.vnpu.api.model.Units;
import io.vnpu.api.slice.ContainerEdits;
import io.vnpu.api.slice.Mount;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.kube.limiter.LimiterUnavailableException;
import io.vnpu.kube.mindcluster.alloc.ContainerAllocator;
import io.vnpu.kube.mindcluster.alloc.ContainerResponses;
import io.vnpu.kube.mindcluster.alloc.DirectAllocator;
import io.vnpu.kube.mindcluster.devices.AdvertisedDevice;
import io.vnpu.kube.mindcluster.devices.ChipState;
import io.vnpu.kube.mindcluster.devices.DeviceCatalog;
import io.vnpu.kube.mindcluster.devices.NodeChips;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.softslice.SoftAsk;
import io.vnpu.kube.softslice.SoftSliceRefusedException;
import io.vnpu.kube.softslice.SoftSliceRule;
import io.vnpu.kube.softslice.SoftSlices;
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
 * Allocate of share copies on a soft-share node ({@code -shareDevCount=100}, {@code
 * -softShareDevConfigDir}): the pod Volcano placed with the softShareDev annotations ({@link
 * SoftShareQuota}; among pending pods of this resource, the smallest {@code predicate-time}) gives
 * the quotas, which our quota region and limiter enforce instead of vCANN-RT, and the chips, those
 * its annotation {@code huawei.com/<type>} names (as {@link VolcanoAllocator}): the kubelet's copy
 * IDs are only a count, it picks free copies in its own order (this plugin offers no
 * GetPreferredAllocation) whatever chip Volcano charged. Each kubelet ID is mapped to the real chip
 * ({@link KubeletDeviceMap}), so the chip's health reaches it.
 *
 * <p>Per Allocate, under the node lock: quotas parsed and checked (a bad value refuses, naming the
 * annotation and value, before anything is consumed; what the slice gets is what Volcano charged,
 * {@link SoftSliceRule}); the limiter verified (else refused, naming the file); the container's
 * slice prepared ({@link SoftSlices}: directory, region, compute registration); the pod claimed
 * (its {@code predicate-time} consumed, {@code huawei.com/AscendReal} and {@code huawei.com/kltDev}
 * written); on a failed claim the registration and the directory are removed. No soft-share pod
 * pending → the plain whole-chip answer.
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
  private final SoftSlices slices;
  private final KubeletDeviceMap kubeletMap;
  private final Object nodeLock;

  /**
   * @param slices the node's soft slices (one instance per agent: it holds the registry files open)
   * @param kubeletMap kubelet ID → the real chip, shared with the resource manager's health
   */
  public SoftShareAllocator(
      VolcanoPods pods,
      Supplier<NodeChips> chips,
      DeviceCatalog catalog,
      ContainerResponses responses,
      SoftSlices slices,
      KubeletDeviceMap kubeletMap,
      Object nodeLock) {
    this.pods = Objects.requireNonNull(pods, "pods");
    this.chips = Objects.requireNonNull(chips, "chips");
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.responses = Objects.requireNonNull(responses, "responses");
    this.slices = Objects.requireNonNull(slices, "slices");
    this.kubeletMap = Objects.requireNonNull(kubeletMap, "kubeletMap");
    this.nodeLock = Objects.requireNonNull(nodeLock, "nodeLock");
  }

  @Override
  public ContainerAllocation allocate(String resourceName, List<String> deviceIds)
      throws AllocationException {
    NodeChips snapshot = chips.get();
    List<AdvertisedDevice> devices =
        DirectAllocator.resolve(catalog, snapshot, resourceName, deviceIds);
    synchronized (nodeLock) {
      for (int attempt = 1; attempt <= VolcanoAllocator.ATTEMPTS; attempt++) {
        Optional<PendingPod> next =
            pods.live().stream()
                .filter(SoftShareQuota::requested)
                .map(p -> PendingPod.of(p, resourceName, resourceName))
                .flatMap(Optional::stream)
                .filter(p -> p.requestsExactly(resourceName, deviceIds.size()))
                .min(PendingPod.ORDER);
        if (next.isEmpty()) {
          return DirectAllocator.respond(responses, devices, Map.of());
        }
        PendingPod pod = next.get();
        Optional<ContainerAllocation> done = soft(pod, resourceName, deviceIds, snapshot);
        if (done.isPresent()) return done.get();
      }
    }
    throw VolcanoAllocator.gaveUp(resourceName, deviceIds, "soft-share pod");
  }

  /**
   * The soft-share answer for this pod; empty when the pod went away or changed before its claim.
   */
  private Optional<ContainerAllocation> soft(
      PendingPod pod, String resourceName, List<String> deviceIds, NodeChips snapshot)
      throws AllocationException {
    List<ChipState> distinct =
        VolcanoAllocator.resolve(pod, snapshot, resourceName).stream()
            .filter(distinctBy(c -> c.npu().phyId()))
            .toList();
    long hbmMib =
        distinct.stream()
            .mapToLong(c -> c.npu().hbmBytes() / Units.MIB)
            .filter(m -> m > 0)
            .min()
            .orElse(0);
    SoftShareQuota quota = SoftShareQuota.of(pod.pod(), hbmMib);
    try {
      slices.verifyLimiter();
    } catch (LimiterUnavailableException e) {
      throw new AllocationException(
          "soft share for pod " + pod.key() + " refused: limiter " + e.getMessage(), e);
    }
    Path dir = containerDir(pod, deviceIds.get(0));
    SliceShare.SoftQuota granted;
    try {
      granted = SoftSliceRule.grant(quota.charge(), SoftAsk.none("annotations"));
    } catch (SoftSliceRefusedException e) {
      throw new AllocationException("pod " + pod.key() + ": " + e.getMessage());
    }
    List<SliceDevice> slice = new ArrayList<>();
    for (ChipState c : distinct) {
      slice.add(new SliceDevice(NpuRef.of(c.npu()), granted));
    }
    SoftSlices.Prepared prepared;
    try {
      prepared = slices.prepare(dir, slice, pod.key());
    } catch (IOException | RuntimeException e) {
      throw new AllocationException(
          "prepare quota region in " + dir + " for pod " + pod.key() + ": " + e.getMessage(), e);
    }
    VolcanoPods.Claim claim;
    try {
      claim =
          pods.claim(
              pod.pod(),
              pod.predicateTime(),
              Map.of(
                  VolcanoKeys.ASCEND_REAL,
                  String.join(",", distinct.stream().map(ChipState::name).toList()),
                  VolcanoKeys.KLT_DEV,
                  String.join(",", deviceIds)));
    } catch (AllocationException e) {
      slices.discard(prepared);
      throw e;
    }
    if (claim != VolcanoPods.Claim.DONE) {
      slices.discard(prepared);
      LOG.info("soft-share pod {} changed before it was claimed; choosing again", pod.key());
      return Optional.empty();
    }
    kubeletMap.put(pod.uid(), deviceIds, realOf(deviceIds, distinct));
    // upstream's runtime answer, then the slice's own edits (region, limiter, registries, env)
    ContainerAllocation base =
        responses.chips(
            distinct.get(0).type(), distinct.stream().map(c -> c.npu().phyId()).toList(), Map.of());
    ContainerEdits edits = slices.edits(prepared);
    Map<String, String> env = new LinkedHashMap<>(base.envs());
    env.putAll(edits.env());
    List<Mount> mounts = new ArrayList<>(base.mounts());
    mounts.addAll(edits.mounts());
    LOG.info(
        "Allocate {} {}: pod {} soft-shares {} with {} MiB HBM and {}% AI Core",
        resourceName,
        deviceIds,
        pod.key(),
        distinct.stream().map(ChipState::name).toList(),
        quota.hbmMib(),
        quota.aicorePercent());
    return Optional.of(
        new ContainerAllocation(
            env, mounts, base.devices(), base.annotations(), base.cdiDevices()));
  }

  /**
   * The real chip of each kubelet ID, {@code ids.size()} long: the IDs split over the chips in
   * order, as many to each.
   */
  private static List<String> realOf(List<String> ids, List<ChipState> chips) {
    List<String> out = new ArrayList<>(ids.size());
    for (int i = 0; i < ids.size(); i++) {
      out.add(chips.get((int) ((long) i * chips.size() / ids.size())).name());
    }
    return out;
  }

  private Path containerDir(PendingPod pod, String firstDeviceId) throws AllocationException {
    try {
      return slices.layout().dirOf(pod.uid(), firstDeviceId);
    } catch (IllegalArgumentException e) {
      throw new AllocationException("pod " + pod.key() + ": " + e.getMessage(), e);
    }
  }

  private static <T> java.util.function.Predicate<T> distinctBy(
      java.util.function.Function<T, Object> key) {
    java.util.Set<Object> seen = new java.util.HashSet<>();
    return t -> seen.add(key.apply(t));
  }
}
