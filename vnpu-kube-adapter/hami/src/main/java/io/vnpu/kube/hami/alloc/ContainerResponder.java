package io.vnpu.kube.hami.alloc;

import io.vnpu.api.slice.ContainerEdits;
import io.vnpu.api.slice.SlicePlan;
import io.vnpu.api.slice.VnpuToCreate;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.kube.hami.codec.HamiNames;
import io.vnpu.kube.hami.cleanup.VnpuIdleTracker;
import io.vnpu.kube.hami.cleanup.VnpuKey;
import io.vnpu.kube.hami.codec.ContainerDevice;
import io.vnpu.kube.hami.codec.RuntimeInfo;
import io.vnpu.kube.hami.devices.NodeDevices;
import io.vnpu.kube.limiter.LimiterGate;
import io.vnpu.kube.limiter.LimiterUnavailableException;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.QuotaRegionFactory;
import io.vnpu.kube.resource.ContainerRegionDirectory;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.resource.ComputeRegistrations;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.LinkOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import io.vnpu.quota.files.HostFiles;
import java.util.Set;
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
 * {@link HardSplitStrategy#PLUGIN_CREATES_VNPU}) or the container directory and quota region
 * (soft split).
 */
public final class ContainerResponder {
  private static final Logger LOG = LoggerFactory.getLogger(ContainerResponder.class);
  /** Container directory holding a region this agent created: {@code rwxr-xr-x}. */
  static final Set<PosixFilePermission> REGION_DIR_MODE = ContainerRegionDirectory.REGION_DIR_MODE;
  /** Container directory where the limiter creates its region (upstream): {@code rwxrwxrwx}. */
  static final Set<PosixFilePermission> LIMITER_CREATES_DIR_MODE = PosixFilePermissions.fromString("rwxrwxrwx");

  private final HamiNames names;
  private final boolean nodeHamiVnpuCore;
  private final HardSplitStrategy hardSplit;
  private final DeviceManager deviceManager;
  private final VnpuIdleTracker idleTracker;
  private final SoftSplitLayout layout;
  private final Optional<QuotaRegionFactory> regions;
  private final Optional<ComputeRegistrations> registrations;
  private final LimiterGate limiter;
  private final Clock clock;

  /**
   * As the full constructor, with the containers registered in the compute registries under
   * {@link SoftSplitLayout#registryDir()} whenever the agent creates the regions.
   */
  public ContainerResponder(HamiNames names, boolean nodeHamiVnpuCore, HardSplitStrategy hardSplit,
      DeviceManager deviceManager, VnpuIdleTracker idleTracker, SoftSplitLayout layout,
      Optional<QuotaRegionFactory> regions, LimiterGate limiter, Clock clock) {
    this(names, nodeHamiVnpuCore, hardSplit, deviceManager, idleTracker, layout, regions,
        regions.map(r -> new ComputeRegistrations(layout.registryDir(), layout.containersRoot(),
            SoftSplitLayout.LOCAL_SHMEM_FILE)), limiter, clock);
  }

  /**
   * @param regions creates the per-container quota region; empty when the limiter creates its own
   *     (upstream hami-vnpu-core)
   * @param registrations registers each container whose region the agent created in the compute
   *     registry of its NPUs, so its AI-core cap and weight hold among its neighbours (required
   *     when {@code regions} is given)
   * @param limiter checked before a soft-split container is answered: a container must never be
   *     told it is limited while the limiter files are missing or broken
   */
  public ContainerResponder(HamiNames names, boolean nodeHamiVnpuCore, HardSplitStrategy hardSplit,
      DeviceManager deviceManager, VnpuIdleTracker idleTracker, SoftSplitLayout layout,
      Optional<QuotaRegionFactory> regions, Optional<ComputeRegistrations> registrations, LimiterGate limiter,
      Clock clock) {
    this.names = Objects.requireNonNull(names, "names");
    this.nodeHamiVnpuCore = nodeHamiVnpuCore;
    this.hardSplit = Objects.requireNonNull(hardSplit, "hardSplit");
    this.deviceManager = Objects.requireNonNull(deviceManager, "deviceManager");
    this.idleTracker = Objects.requireNonNull(idleTracker, "idleTracker");
    this.layout = Objects.requireNonNull(layout, "layout");
    this.regions = Objects.requireNonNull(regions, "regions");
    this.registrations = Objects.requireNonNull(registrations, "registrations");
    if (regions.isPresent() && registrations.isEmpty()) {
      throw new IllegalArgumentException("regions the agent creates need compute registrations");
    }
    this.limiter = Objects.requireNonNull(limiter, "limiter");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Decides the container's slice from the annotations, then carries out the plan: creates its
   * vNPUs or its container directory and quota region, and returns the response.
   *
   * @throws AllocationException when a device is unknown, a value is out of range, or a vNPU or
   *     region cannot be created (everything created so far is undone)
   */
  public PreparedContainer prepare(ContainerTarget target, List<ContainerDevice> devices,
      Map<String, RuntimeInfo> info, NodeDevices npus) throws AllocationException {
    return switch (AllocationMode.of(target.podAnnotations(), nodeHamiVnpuCore)) {
      case SOFT -> {
        verifyLimiter(target);
        Path dir = containerDir(target);
        yield soft(target, dir, SoftSplitResponses.plan(devices, info, npus, names.runtimeInfo(), layout, dir,
            regions.isPresent()));
      }
      case HARD_OR_WHOLE -> hardSplit == HardSplitStrategy.PLUGIN_CREATES_VNPU
          && HardSplitResponses.firstTemplate(devices, info).isPresent()
          ? createVnpus(target, HardSplitResponses.pluginCreatesPlan(devices, info, npus, names.runtimeInfo()))
          : new PreparedContainer(response(HardSplitResponses.plan(devices, info, npus, names.runtimeInfo()),
              SlicePlan::edits), () -> { });
    };
  }

  private static ContainerAllocation response(SlicePlan plan, java.util.function.Function<SlicePlan, ContainerEdits> edits) {
    return ContainerAllocation.of(edits.apply(plan), plan.annotations(), plan.cdiDevices());
  }

  private PreparedContainer createVnpus(ContainerTarget target, SlicePlan plan) throws AllocationException {
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
        throw new AllocationException("create vNPU " + want.template() + " on NPU " + want.npu().uuid()
            + " (logic ID " + want.logicId() + "): " + e.getMessage(), e);
      }
    }
    String ids = created.stream().map(k -> Integer.toString(k.vnpuId())).collect(Collectors.joining(","));
    ContainerEdits edits = plan.createdVnpuIdsEnv().map(env -> plan.edits().withEnv(env, ids)).orElse(plan.edits());
    return new PreparedContainer(ContainerAllocation.of(edits, plan.annotations(), plan.cdiDevices()), rollback);
  }

  private void destroy(List<VnpuKey> created) {
    for (VnpuKey k : created) {
      try {
        deviceManager.destroyVnpu(k.logicId(), k.vnpuId());
        idleTracker.forget(k);
      } catch (DeviceException e) {
        // the idle cleanup reclaims it after the grace period
        LOG.warn("rollback: destroy vNPU {} on logic ID {} failed: {}", k.vnpuId(), k.logicId(), e.getMessage());
      }
    }
    created.clear();
  }

  private void verifyLimiter(ContainerTarget target) throws AllocationException {
    try {
      limiter.verify();
    } catch (LimiterUnavailableException e) {
      throw new AllocationException("soft slice for container " + target.namespace() + "/" + target.podName()
          + "/" + target.containerName() + " refused: limiter " + e.getMessage(), e);
    }
  }

  private Path containerDir(ContainerTarget target) throws AllocationException {
    try {
      return layout.containerDir(target.podUid(), target.containerName());
    } catch (IllegalArgumentException e) {
      throw new AllocationException("container " + target.namespace() + "/" + target.podName() + "/"
          + target.containerName() + ": " + e.getMessage(), e);
    }
  }

  private PreparedContainer soft(ContainerTarget target, Path dir, SlicePlan plan) throws AllocationException {
    boolean ours = regions.isPresent() && plan.region().isPresent();
    String who = target.namespace() + "/" + target.podName() + "/" + target.containerName();
    long key = 0;
    try {
      if (ours) {
        key = ContainerRegionDirectory.createRegistered(layout.containersRoot(), dir, regions.get(),
            plan.region().get(), registrations.get(), who);
      } else {
        ContainerRegionDirectory.create(layout.containersRoot(), dir, null, null);
        // the limiter creates its own region here (upstream): the container's user must write
        HostFiles.setMode(dir, LIMITER_CREATES_DIR_MODE);
      }
    } catch (IOException | RuntimeException e) {
      HostFiles.deleteQuietly(dir);
      throw new AllocationException("prepare quota region in " + dir + " for container " + who + ": "
          + e.getMessage(), e);
    }
    long registered = key;
    return new PreparedContainer(response(plan, SlicePlan::edits), () -> {
      if (registered != 0) {
        try {
          registrations.get().unregister(registered);
        } catch (IOException | RuntimeException e) {
          LOG.warn("rollback: compute registry entry of {} not removed ({}); the region cleanup retries", who,
              e.getMessage());
        }
      }
      if (!HostFiles.deleteQuietly(dir) && Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
        LOG.warn("rollback: remove {} failed; the region cleanup retries", dir);
      }
    });
  }

  /** The compute registrations of the containers whose regions this responder creates. */
  public Optional<ComputeRegistrations> registrations() {
    return registrations;
  }
}
