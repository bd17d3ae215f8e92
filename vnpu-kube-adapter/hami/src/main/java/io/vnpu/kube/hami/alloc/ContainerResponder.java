package io.vnpu.kube.hami.alloc;

import io.vnpu.api.model.Vnpu;
import io.vnpu.api.slice.ContainerEdits;
import io.vnpu.api.slice.RegionToCreate;
import io.vnpu.api.slice.SharingPolicy;
import io.vnpu.api.slice.SlicePlan;
import io.vnpu.api.slice.VnpuToCreate;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.kube.hami.cleanup.VnpuIdleTracker;
import io.vnpu.kube.hami.cleanup.VnpuKey;
import io.vnpu.kube.hami.codec.ContainerDevice;
import io.vnpu.kube.hami.codec.HamiNames;
import io.vnpu.kube.hami.codec.RuntimeInfo;
import io.vnpu.kube.hami.devices.NodeDevices;
import io.vnpu.kube.limiter.LimiterUnavailableException;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.softslice.SoftSlices;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds one container's response and performs its side effects: creating vNPUs (hard split with
 * {@link HardSplitStrategy#PLUGIN_CREATES_VNPU}) or the container directory and quota region (soft
 * split).
 */
public final class ContainerResponder {
  private static final Logger LOG = LoggerFactory.getLogger(ContainerResponder.class);
  private final HamiNames names;
  private final boolean nodeHamiVnpuCore;
  private final HardSplitStrategy hardSplit;
  private final DeviceManager deviceManager;
  private final VnpuIdleTracker idleTracker;
  private final SoftSplitLayout layout;
  private final SoftSlices slices;
  private final boolean agentRegions;
  private final Clock clock;

  /**
   * @param slices the node's soft slices ({@link SoftSplitLayout#slices()}): directory, region and
   *     compute registration of each soft-split container, and the limiter check run before a
   *     soft-split container is answered
   * @param agentRegions whether the agent creates the quota regions (and registers them); false
   *     leaves an empty directory for the limiter to create its own (upstream hami-vnpu-core)
   */
  public ContainerResponder(
      HamiNames names,
      boolean nodeHamiVnpuCore,
      HardSplitStrategy hardSplit,
      DeviceManager deviceManager,
      VnpuIdleTracker idleTracker,
      SoftSplitLayout layout,
      SoftSlices slices,
      boolean agentRegions,
      Clock clock) {
    this.names = Objects.requireNonNull(names, "names");
    this.nodeHamiVnpuCore = nodeHamiVnpuCore;
    this.hardSplit = Objects.requireNonNull(hardSplit, "hardSplit");
    this.deviceManager = Objects.requireNonNull(deviceManager, "deviceManager");
    this.idleTracker = Objects.requireNonNull(idleTracker, "idleTracker");
    this.layout = Objects.requireNonNull(layout, "layout");
    this.slices = Objects.requireNonNull(slices, "slices");
    this.agentRegions = agentRegions;
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Decides the container's slice from the annotations, then carries out the plan: creates its
   * vNPUs or its container directory and quota region, and returns the response.
   *
   * @throws AllocationException when a device is unknown, a value is out of range, or a vNPU or
   *     region cannot be created (everything created so far is undone)
   */
  public PreparedContainer prepare(
      ContainerTarget target,
      List<ContainerDevice> devices,
      Map<String, RuntimeInfo> info,
      NodeDevices npus)
      throws AllocationException {
    return switch (AllocationMode.of(target.podAnnotations(), nodeHamiVnpuCore)) {
      case SOFT -> {
        verifyLimiter(target);
        Path dir = containerDir(target);
        Optional<SharingPolicy> policy =
            SoftSplitResponses.askedPolicy(
                "pod " + target.namespace() + "/" + target.podName(), target.podAnnotations());
        yield soft(
            target,
            dir,
            SoftSplitResponses.plan(
                devices, info, npus, names.runtimeInfo(), layout, dir, agentRegions, policy));
      }
      case HARD_OR_WHOLE ->
          hardSplit == HardSplitStrategy.PLUGIN_CREATES_VNPU
                  && HardSplitResponses.firstTemplate(devices, info).isPresent()
              ? createVnpus(
                  target,
                  HardSplitResponses.pluginCreatesPlan(devices, info, npus, names.runtimeInfo()))
              : new PreparedContainer(
                  response(
                      HardSplitResponses.plan(devices, info, npus, names.runtimeInfo()),
                      SlicePlan::edits),
                  () -> {});
    };
  }

  private static ContainerAllocation response(
      SlicePlan plan, java.util.function.Function<SlicePlan, ContainerEdits> edits) {
    return ContainerAllocation.of(edits.apply(plan), plan.annotations(), plan.cdiDevices());
  }

  private PreparedContainer createVnpus(ContainerTarget target, SlicePlan plan)
      throws AllocationException {
    List<VnpuKey> created = new ArrayList<>();
    Runnable rollback = () -> destroy(created);
    for (VnpuToCreate want : plan.vnpus()) {
      try {
        Vnpu v = deviceManager.createVnpu(want.logicId(), want.template());
        VnpuKey key = new VnpuKey(want.logicId(), v.vnpuId(), v.templateName());
        idleTracker.created(key, clock.instant(), target.podUid());
        created.add(key);
      } catch (DeviceException e) {
        rollback.run();
        throw new AllocationException(
            "create vNPU "
                + want.template()
                + " on NPU "
                + want.npu().uuid()
                + " (logic ID "
                + want.logicId()
                + "): "
                + e.getMessage(),
            e);
      }
    }
    String ids =
        created.stream().map(k -> Integer.toString(k.vnpuId())).collect(Collectors.joining(","));
    ContainerEdits edits =
        plan.createdVnpuIdsEnv().map(env -> plan.edits().withEnv(env, ids)).orElse(plan.edits());
    return new PreparedContainer(
        ContainerAllocation.of(edits, plan.annotations(), plan.cdiDevices()), rollback);
  }

  private void destroy(List<VnpuKey> created) {
    for (VnpuKey k : created) {
      try {
        deviceManager.destroyVnpu(k.logicId(), k.vnpuId());
        idleTracker.forget(k);
      } catch (DeviceException e) {
        // the idle cleanup reclaims it after the grace period
        LOG.warn(
            "rollback: destroy vNPU {} on logic ID {} failed: {}",
            k.vnpuId(),
            k.logicId(),
            e.getMessage());
      }
    }
    created.clear();
  }

  private void verifyLimiter(ContainerTarget target) throws AllocationException {
    try {
      slices.verifyLimiter();
    } catch (LimiterUnavailableException e) {
      throw new AllocationException(
          "soft slice for container "
              + target.namespace()
              + "/"
              + target.podName()
              + "/"
              + target.containerName()
              + " refused: limiter "
              + e.getMessage(),
          e);
    }
  }

  private Path containerDir(ContainerTarget target) throws AllocationException {
    try {
      return layout.containerDir(target.podUid(), target.containerName());
    } catch (IllegalArgumentException e) {
      throw new AllocationException(
          "container "
              + target.namespace()
              + "/"
              + target.podName()
              + "/"
              + target.containerName()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private PreparedContainer soft(ContainerTarget target, Path dir, SlicePlan plan)
      throws AllocationException {
    String who = target.namespace() + "/" + target.podName() + "/" + target.containerName();
    // the soft-split plan always names the region: the agent creates it, or the limiter does and
    // the agent records the same charge for the metrics
    RegionToCreate region =
        plan.region()
            .orElseThrow(() -> new IllegalStateException("soft-split plan without a region"));
    Optional<SoftSlices.Prepared> prepared = Optional.empty();
    try {
      if (agentRegions) {
        prepared = Optional.of(slices.prepare(dir, region.devices(), who));
      } else {
        slices.prepareForLimiter(dir, region);
      }
    } catch (IOException | RuntimeException e) {
      throw new AllocationException(
          "prepare quota region in " + dir + " for container " + who + ": " + e.getMessage(), e);
    }
    Optional<SoftSlices.Prepared> made = prepared;
    return new PreparedContainer(
        response(plan, SlicePlan::edits),
        () -> {
          if (made.isPresent()) {
            slices.discard(made.get());
          } else if (!slices.discardForLimiter(dir)) {
            LOG.warn("rollback: remove {} or its charge record failed; the sweep retries", dir);
          }
        });
  }

  /** The node's soft slices. */
  public SoftSlices slices() {
    return slices;
  }
}
