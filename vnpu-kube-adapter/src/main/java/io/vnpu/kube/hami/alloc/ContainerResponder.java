package io.vnpu.kube.hami.alloc;

import io.vnpu.api.slice.ContainerEdits;
import io.vnpu.api.slice.SlicePlan;
import io.vnpu.api.slice.VnpuToCreate;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.kube.hami.HamiNames;
import io.vnpu.kube.hami.cleanup.VnpuIdleTracker;
import io.vnpu.kube.hami.cleanup.VnpuKey;
import io.vnpu.kube.hami.codec.ContainerDevice;
import io.vnpu.kube.hami.codec.RuntimeInfo;
import io.vnpu.kube.hami.devices.NodeDevices;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds one container's response and performs its side effects: creating vNPUs (hard split with
 * {@link HardSplitStrategy#PLUGIN_CREATES_VNPU}) or the container directory and quota region
 * (soft split).
 */
public final class ContainerResponder {
  private static final Logger LOG = LoggerFactory.getLogger(ContainerResponder.class);

  private final HamiNames names;
  private final boolean nodeHamiVnpuCore;
  private final HardSplitStrategy hardSplit;
  private final DeviceManager deviceManager;
  private final VnpuIdleTracker idleTracker;
  private final SoftSplitLayout layout;
  private final Optional<QuotaRegionFactory> regions;
  private final Clock clock;

  /**
   * @param regions creates the per-container quota region; empty when the limiter creates its own
   *     (upstream hami-vnpu-core)
   */
  public ContainerResponder(HamiNames names, boolean nodeHamiVnpuCore, HardSplitStrategy hardSplit,
      DeviceManager deviceManager, VnpuIdleTracker idleTracker, SoftSplitLayout layout,
      Optional<QuotaRegionFactory> regions, Clock clock) {
    this.names = Objects.requireNonNull(names, "names");
    this.nodeHamiVnpuCore = nodeHamiVnpuCore;
    this.hardSplit = Objects.requireNonNull(hardSplit, "hardSplit");
    this.deviceManager = Objects.requireNonNull(deviceManager, "deviceManager");
    this.idleTracker = Objects.requireNonNull(idleTracker, "idleTracker");
    this.layout = Objects.requireNonNull(layout, "layout");
    this.regions = Objects.requireNonNull(regions, "regions");
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
        Path dir = layout.containerDir(target.podUid(), target.containerName());
        yield soft(target, dir, SoftSplitResponses.plan(devices, info, npus, names.runtimeInfo(), layout, dir));
      }
      case HARD_OR_WHOLE -> hardSplit == HardSplitStrategy.PLUGIN_CREATES_VNPU
          && HardSplitResponses.firstTemplate(devices, info).isPresent()
          ? createVnpus(HardSplitResponses.pluginCreatesPlan(devices, info, npus, names.runtimeInfo()))
          : new PreparedContainer(response(HardSplitResponses.plan(devices, info, npus, names.runtimeInfo()),
              SlicePlan::edits), () -> { });
    };
  }

  private static ContainerAllocation response(SlicePlan plan, java.util.function.Function<SlicePlan, ContainerEdits> edits) {
    return ContainerAllocation.of(edits.apply(plan), plan.annotations(), plan.cdiDevices());
  }

  private PreparedContainer createVnpus(SlicePlan plan) throws AllocationException {
    List<VnpuKey> created = new ArrayList<>();
    Runnable rollback = () -> destroy(created);
    for (VnpuToCreate want : plan.vnpus()) {
      try {
        Vnpu v = deviceManager.createVnpu(want.logicId(), want.template());
        VnpuKey key = new VnpuKey(want.logicId(), v.vnpuId(), v.templateName());
        idleTracker.created(key, clock.instant());
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

  private PreparedContainer soft(ContainerTarget target, Path dir, SlicePlan plan) throws AllocationException {
    try {
      deleteRecursively(dir);
      Files.createDirectories(dir);
      // the container may run as any user; upstream creates the directory 0777 as well
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
      if (regions.isPresent() && plan.region().isPresent()) {
        regions.get().create(plan.region().get());
      }
    } catch (IOException | RuntimeException e) {
      deleteQuietly(dir);
      throw new AllocationException("prepare quota region in " + dir + " for container "
          + target.namespace() + "/" + target.podName() + "/" + target.containerName() + ": " + e.getMessage(), e);
    }
    return new PreparedContainer(response(plan, SlicePlan::edits), () -> deleteQuietly(dir));
  }

  private static void deleteQuietly(Path dir) {
    try {
      deleteRecursively(dir);
    } catch (IOException e) {
      LOG.warn("remove {} failed: {}", dir, e.getMessage());
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) return;
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
    }
  }
}
