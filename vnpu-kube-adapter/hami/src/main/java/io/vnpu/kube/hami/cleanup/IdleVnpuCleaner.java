package io.vnpu.kube.hami.cleanup;

import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.kube.hami.devices.NodeDevices;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Idle hard-vNPU cleanup (protocol spec section 6.4): reclaims vNPUs no container uses, e.g. left
 * behind by a reboot or by a container that failed to start, but only after they have been idle for
 * the whole grace period. Errors of one NPU are logged and the others still scanned.
 *
 * <p>DCMI's in-use flag only says whether a process has the vNPU open, so idleness also consults
 * {@link LiveAllocations}: a vNPU created here for a pod that is still live is not idle whatever
 * DCMI says; of those whose owner is unknown (created before a restart), each NPU keeps per
 * template only as many as the live pods' allocations on it still need (so orphans next to a live
 * pod, and a surplus of one template next to pods holding others, are reclaimed after the grace
 * period), or all of them when an allocation there does not say its templates. When the live
 * allocations cannot be read, the scan destroys nothing and says why (once per outage).
 */
public final class IdleVnpuCleaner {
  private static final Logger LOG = LoggerFactory.getLogger(IdleVnpuCleaner.class);

  private final DeviceManager deviceManager;
  private final Supplier<NodeDevices> devices;
  private final VnpuIdleTracker tracker;
  private final Clock clock;
  private final Duration grace;
  private final LiveAllocations live;
  private boolean liveUnavailable;

  /**
   * @param live what the live pods of this node hold, read once per scan
   * @param grace how long a vNPU must be seen idle (or, for one created here, exist unused) before
   *     it is destroyed; covers image pulls between Allocate and container start
   */
  public IdleVnpuCleaner(
      DeviceManager deviceManager,
      Supplier<NodeDevices> devices,
      VnpuIdleTracker tracker,
      LiveAllocations live,
      Clock clock,
      Duration grace) {
    this.live = Objects.requireNonNull(live, "live");
    this.deviceManager = Objects.requireNonNull(deviceManager, "deviceManager");
    this.devices = Objects.requireNonNull(devices, "devices");
    this.tracker = Objects.requireNonNull(tracker, "tracker");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.grace = Objects.requireNonNull(grace, "grace");
    if (grace.isNegative()) throw new IllegalArgumentException("grace must be >= 0: " + grace);
  }

  /**
   * One scan over every NPU of the node.
   *
   * @return the vNPUs destroyed
   */
  public synchronized List<VnpuKey> runOnce() {
    List<VnpuKey> destroyed = new ArrayList<>();
    LiveAllocations.Holders holders;
    try {
      holders = live.read();
      if (liveUnavailable) LOG.info("idle vNPU cleanup: live pod allocations readable again");
      liveUnavailable = false;
    } catch (LiveAllocationsUnavailableException e) {
      if (!liveUnavailable) {
        LOG.warn(
            "idle vNPU cleanup: destroying nothing while the live pod allocations cannot be read: {}",
            e.getMessage());
      }
      liveUnavailable = true;
      return destroyed;
    }
    for (Npu npu : devices.get().npus()) {
      List<Vnpu> vnpus;
      try {
        vnpus = deviceManager.listVnpus(npu.logicId());
      } catch (DeviceException e) {
        LOG.warn(
            "idle vNPU cleanup: list vNPUs of NPU {} (logic ID {}) failed: {}",
            npu.uuid(),
            npu.logicId(),
            e.getMessage());
        continue;
      }
      Set<VnpuKey> existing = new HashSet<>();
      Set<Integer> held = heldOn(npu, vnpus, holders);
      for (Vnpu v : vnpus) {
        VnpuKey key = new VnpuKey(npu.logicId(), v.vnpuId(), v.templateName());
        existing.add(key);
        if (!tracker.observe(key, held.contains(v.vnpuId()), clock.instant(), grace)) continue;
        try {
          deviceManager.destroyVnpu(npu.logicId(), v.vnpuId());
          tracker.forget(key);
          existing.remove(key);
          destroyed.add(key);
          LOG.info(
              "destroyed idle vNPU {} ({}) on NPU {}", v.vnpuId(), v.templateName(), npu.uuid());
        } catch (DeviceException e) {
          LOG.warn(
              "idle vNPU cleanup: destroy vNPU {} on NPU {} failed: {}",
              v.vnpuId(),
              npu.uuid(),
              e.getMessage());
        }
      }
      tracker.retainOnDevice(npu.logicId(), existing);
    }
    return destroyed;
  }

  /**
   * The vNPU IDs of {@code npu} that are not idle: in use (DCMI), created here for a live pod, and
   * of the others whose owner is unknown (created before a restart) as many per template as the
   * live allocations on the NPU still need after the first two kinds (lowest IDs first); all of
   * them when a live allocation on the NPU does not say which templates it needs. A vNPU whose
   * owner is known and gone is held by nothing.
   */
  private Set<Integer> heldOn(Npu npu, List<Vnpu> vnpus, LiveAllocations.Holders holders) {
    Set<Integer> held = new HashSet<>();
    java.util.Map<String, Integer> need =
        new java.util.HashMap<>(holders.templates().getOrDefault(npu.uuid(), java.util.Map.of()));
    List<Vnpu> unknownOwner = new ArrayList<>();
    for (Vnpu v : vnpus) {
      java.util.Optional<String> owner =
          tracker.owner(new VnpuKey(npu.logicId(), v.vnpuId(), v.templateName()));
      if (v.inUse() || owner.map(holders.podUids()::contains).orElse(false)) {
        held.add(v.vnpuId());
        need.computeIfPresent(v.templateName(), (t, n) -> n - 1);
      } else if (owner.isEmpty()) {
        unknownOwner.add(v);
      }
    }
    boolean all = holders.npuUuids().contains(npu.uuid());
    unknownOwner.sort(java.util.Comparator.comparingInt(Vnpu::vnpuId));
    for (Vnpu v : unknownOwner) {
      int n = need.getOrDefault(v.templateName(), 0);
      if (all || n > 0) {
        held.add(v.vnpuId());
        need.put(v.templateName(), n - 1);
      }
    }
    return held;
  }
}
