package io.vnpu.kube.hami.alloc;

import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.kube.hami.HamiNames;
import io.vnpu.kube.hami.cleanup.VnpuIdleTracker;
import io.vnpu.kube.hami.cleanup.VnpuKey;
import io.vnpu.kube.hami.codec.ContainerDevice;
import io.vnpu.kube.hami.codec.RuntimeInfo;
import io.vnpu.kube.hami.devices.NodeDevices;
import io.vnpu.kube.limiter.LimiterGate;
import io.vnpu.kube.limiter.LimiterUnavailableException;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
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
import java.util.LinkedHashMap;
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
  static final Set<PosixFilePermission> REGION_DIR_MODE = PosixFilePermissions.fromString("rwxr-xr-x");
  /** Container directory where the limiter creates its region (upstream): {@code rwxrwxrwx}. */
  static final Set<PosixFilePermission> LIMITER_CREATES_DIR_MODE = PosixFilePermissions.fromString("rwxrwxrwx");

  private final HamiNames names;
  private final boolean nodeHamiVnpuCore;
  private final HardSplitStrategy hardSplit;
  private final DeviceManager deviceManager;
  private final VnpuIdleTracker idleTracker;
  private final SoftSplitLayout layout;
  private final Optional<QuotaRegionFactory> regions;
  private final LimiterGate limiter;
  private final Clock clock;

  /**
   * @param regions creates the per-container quota region; empty when the limiter creates its own
   *     (upstream hami-vnpu-core)
   * @param limiter checked before a soft-split container is answered: a container must never be
   *     told it is limited while the limiter files are missing or broken
   */
  public ContainerResponder(HamiNames names, boolean nodeHamiVnpuCore, HardSplitStrategy hardSplit,
      DeviceManager deviceManager, VnpuIdleTracker idleTracker, SoftSplitLayout layout,
      Optional<QuotaRegionFactory> regions, LimiterGate limiter, Clock clock) {
    this.names = Objects.requireNonNull(names, "names");
    this.nodeHamiVnpuCore = nodeHamiVnpuCore;
    this.hardSplit = Objects.requireNonNull(hardSplit, "hardSplit");
    this.deviceManager = Objects.requireNonNull(deviceManager, "deviceManager");
    this.idleTracker = Objects.requireNonNull(idleTracker, "idleTracker");
    this.layout = Objects.requireNonNull(layout, "layout");
    this.regions = Objects.requireNonNull(regions, "regions");
    this.limiter = Objects.requireNonNull(limiter, "limiter");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * @throws AllocationException when a device is unknown, a value is out of range, or a vNPU or
   *     region cannot be created (everything created so far is undone)
   */
  public PreparedContainer prepare(ContainerTarget target, List<ContainerDevice> devices,
      Map<String, RuntimeInfo> info, NodeDevices npus) throws AllocationException {
    return switch (AllocationMode.of(target.podAnnotations(), nodeHamiVnpuCore)) {
      case SOFT -> soft(target, devices, info, npus);
      case HARD_OR_WHOLE -> hardSplit == HardSplitStrategy.PLUGIN_CREATES_VNPU
          && HardSplitResponses.firstTemplate(devices, info).isPresent()
          ? createVnpus(devices, info, npus)
          : new PreparedContainer(HardSplitResponses.build(devices, info, npus, names.runtimeInfo()), () -> { });
    };
  }

  private PreparedContainer createVnpus(List<ContainerDevice> devices, Map<String, RuntimeInfo> info,
      NodeDevices npus) throws AllocationException {
    List<Npu> resolved = HardSplitResponses.resolve(devices, npus, names.runtimeInfo());
    List<VnpuKey> created = new ArrayList<>();
    Runnable rollback = () -> destroy(created);
    for (int i = 0; i < devices.size(); i++) {
      ContainerDevice d = devices.get(i);
      RuntimeInfo ri = info.get(d.uuid());
      String template = ri == null ? "" : ri.temp();
      if (template.isEmpty()) {
        rollback.run();
        throw new AllocationException("annotation " + names.runtimeInfo() + ": device " + d.uuid()
            + " has no temp while another device of the container has one");
      }
      Npu npu = resolved.get(i);
      try {
        Vnpu v = deviceManager.createVnpu(npu.logicId(), template);
        VnpuKey key = new VnpuKey(npu.logicId(), v.vnpuId(), v.templateName());
        idleTracker.created(key, clock.instant());
        created.add(key);
      } catch (DeviceException e) {
        rollback.run();
        throw new AllocationException("create vNPU " + template + " on NPU " + npu.uuid()
            + " (logic ID " + npu.logicId() + "): " + e.getMessage(), e);
      }
    }
    Map<String, String> envs = new LinkedHashMap<>();
    envs.put(AscendEnv.VISIBLE_DEVICES,
        created.stream().map(k -> Integer.toString(k.vnpuId())).collect(Collectors.joining(",")));
    envs.put(AscendEnv.RUNTIME_OPTIONS, "VIRTUAL");
    return new PreparedContainer(new ContainerAllocation(envs, List.of(), List.of(), Map.of(), List.of()), rollback);
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

  private PreparedContainer soft(ContainerTarget target, List<ContainerDevice> devices,
      Map<String, RuntimeInfo> info, NodeDevices npus) throws AllocationException {
    try {
      limiter.verify();
    } catch (LimiterUnavailableException e) {
      throw new AllocationException("soft slice for container " + target.namespace() + "/" + target.podName()
          + "/" + target.containerName() + " refused: limiter " + e.getMessage(), e);
    }
    Path dir;
    try {
      dir = layout.containerDir(target.podUid(), target.containerName());
    } catch (IllegalArgumentException e) {
      throw new AllocationException("container " + target.namespace() + "/" + target.podName() + "/"
          + target.containerName() + ": " + e.getMessage(), e);
    }
    ContainerAllocation allocation =
        SoftSplitResponses.build(devices, info, npus, names.runtimeInfo(), layout, dir);
    List<DeviceQuota> quotas = SoftSplitResponses.quotas(devices, info, npus, names.runtimeInfo());
    try {
      // HostFiles rules: the root is ours alone; the container's directory is created afresh
      // (never reused, a previous one is removed without following links) and stays 0700 until
      // the region in it is complete, so nobody can plant a link the creation would follow
      HostFiles.ensureTrustedDirectory(layout.containersRoot(), HostFiles.OWNER_ONLY_DIR);
      HostFiles.deleteTree(dir);
      HostFiles.createPrivateDirectory(dir);
      if (regions.isPresent()) {
        regions.get().create(dir.resolve(SoftSplitLayout.LOCAL_SHMEM_FILE), quotas);
        // the region file is 0666 for any container user; the directory needs no writer
        HostFiles.setMode(dir, REGION_DIR_MODE);
      } else {
        // the limiter creates its own region here (upstream): the container's user must write
        HostFiles.setMode(dir, LIMITER_CREATES_DIR_MODE);
      }
    } catch (IOException | RuntimeException e) {
      HostFiles.deleteQuietly(dir);
      throw new AllocationException("prepare quota region in " + dir + " for container "
          + target.namespace() + "/" + target.podName() + "/" + target.containerName() + ": " + e.getMessage(), e);
    }
    return new PreparedContainer(allocation, () -> {
      if (!HostFiles.deleteQuietly(dir) && Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
        LOG.warn("rollback: remove {} failed; the region cleanup retries", dir);
      }
    });
  }
}
