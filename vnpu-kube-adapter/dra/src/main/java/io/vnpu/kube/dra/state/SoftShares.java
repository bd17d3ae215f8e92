package io.vnpu.kube.dra.state;

import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.kube.dra.cdi.CdiDevice;
import io.vnpu.kube.dra.checkpoint.Checkpoint;
import io.vnpu.kube.dra.checkpoint.PreparedClaim;
import io.vnpu.kube.dra.checkpoint.PreparedDevice;
import io.vnpu.kube.dra.devices.NpuInventory;
import io.vnpu.kube.dra.soft.SoftShareRecord;
import io.vnpu.kube.limiter.LimiterUnavailableException;
import io.vnpu.kube.softslice.SoftSlices;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The soft-share steps of the claim state (one mechanism of sharing a chip): a quota region per
 * request with soft shares and its compute-registry entries, through the one soft-slice mechanism
 * ({@link SoftSlices}); adopted from a claim rebuilt from its CDI spec, removed at unprepare, swept
 * at start-up. {@link DeviceState} runs them under its lock and records each step through the
 * {@link Journal}. Without soft slicing ({@code slices} null) a plan with soft shares is refused.
 */
final class SoftShares {
  private static final Logger log = LoggerFactory.getLogger(SoftShares.class);

  private final SoftSlices softRegions; // null when soft slicing is off
  private final NpuInventory inventory;

  SoftShares(SoftSlices slices, NpuInventory inventory) {
    this.softRegions = slices;
    this.inventory = Objects.requireNonNull(inventory, "inventory");
  }

  /**
   * The plan with the live quota regions of {@code rebuilt} (same claim, rebuilt from its CDI spec
   * after the checkpoint was lost) it asks for: a region directory of the plan that the rebuilt
   * entry records and that still holds its region is kept as it is, with the registry key found for
   * it ({@link SoftSlices#registeredKey}), and added to {@code adopted} so that it is not created
   * again (a running container keeps its region, the registry its one entry). Rebuilt regions the
   * plan does not ask for are removed; failures are logged.
   */
  PreparedClaim adopt(PreparedClaim plan, PreparedClaim rebuilt, java.util.Set<String> adopted) {
    if (softRegions == null) {
      return plan;
    }
    java.util.Map<String, Long> held = new java.util.HashMap<>();
    for (PreparedDevice h : rebuilt.devices()) {
      if (h.soft() != null && !h.soft().regionDir().isEmpty()) {
        held.put(h.soft().regionDir(), h.soft().registryKey());
      }
    }
    List<PreparedDevice> devices = new ArrayList<>(plan.devices());
    for (int i = 0; i < devices.size(); i++) {
      PreparedDevice d = devices.get(i);
      if (d.soft() == null
          || !held.containsKey(d.soft().regionDir())
          || !softRegions.holdsRegion(Path.of(d.soft().regionDir()))) {
        continue;
      }
      Long key = held.get(d.soft().regionDir());
      devices.set(i, d.withSoft(key == null ? d.soft() : d.soft().withKey(key)));
      if (adopted.add(d.soft().regionDir())) {
        log.info(
            "ResourceClaim {}/{} (uid {}) keeps its quota region {} (registry key {})",
            plan.namespace(),
            plan.name(),
            plan.uid(),
            d.soft().regionDir(),
            key == null ? "none" : Long.toHexString(key));
      }
    }
    for (var h : held.entrySet()) {
      if (adopted.contains(h.getKey())) {
        continue;
      }
      try {
        softRegions.remove(Path.of(h.getKey()), h.getValue());
        log.info(
            "removed quota region {} of rebuilt ResourceClaim uid {}: its allocation no"
                + " longer asks for it",
            h.getKey(),
            plan.uid());
      } catch (IOException | RuntimeException e) {
        log.warn(
            "quota region {} of rebuilt ResourceClaim uid {} left: {}",
            h.getKey(),
            plan.uid(),
            e.getMessage());
      }
    }
    return plan.withDevices(devices);
  }

  /**
   * Creates the quota region of every request with soft shares (entries in the container's device
   * order; a device of the request without a share is unlimited), records its epoch as the shares'
   * registry key, then registers each compute-limited share in its NPU's registry. The region
   * directories were recorded with {@code PrepareStarted}, so a crash leaves paths to remove; the
   * key is recorded before registering, so unregistering never misses an entry.
   *
   * @throws LimiterUnavailableException naming the limiter file when the limiter is not usable
   *     (nothing is created then)
   */
  PreparedClaim create(PreparedClaim plan, java.util.Set<String> adopted)
      throws IOException, LimiterUnavailableException {
    if (plan.devices().stream()
        .noneMatch(d -> d.soft() != null && !adopted.contains(d.soft().regionDir()))) {
      return plan;
    }
    if (softRegions == null) {
      throw new IOException("soft slicing is not set up on this plugin");
    }
    softRegions.verifyLimiter();
    List<PreparedDevice> devices = new ArrayList<>(plan.devices());
    java.util.Map<String, List<Integer>> byDir = new java.util.LinkedHashMap<>();
    for (int i = 0; i < devices.size(); i++) {
      if (devices.get(i).soft() != null && !adopted.contains(devices.get(i).soft().regionDir())) {
        byDir.computeIfAbsent(devices.get(i).soft().regionDir(), k -> new ArrayList<>()).add(i);
      }
    }
    for (var e : byDir.entrySet()) {
      Path dir = Path.of(e.getKey());
      PreparedDevice first = devices.get(e.getValue().get(0));
      String request = first.requestNames().get(0);
      // entries in the container's device order; a device of the request without a share is
      // unlimited
      java.util.Map<Integer, SliceShare.SoftQuota> quotas = new java.util.LinkedHashMap<>();
      for (int phy : ClaimPlanner.deviceOrder(plan.devices(), request)) {
        quotas.put(phy, new SliceShare.SoftQuota(0, 0, 0, io.vnpu.api.model.Priority.NORMAL));
      }
      for (int i : e.getValue()) {
        PreparedDevice d = devices.get(i);
        SoftShareRecord s = d.soft();
        quotas.put(
            d.physicalId(),
            new SliceShare.SoftQuota(
                s.memoryBytes(),
                s.weight(),
                s.capPct(),
                s.priority(),
                java.util.Optional.ofNullable(s.weight() > 0 ? s.policy() : null)));
      }
      List<SliceDevice> slice = new ArrayList<>();
      for (var q : quotas.entrySet()) {
        String uuid =
            inventory.devices().values().stream()
                .filter(n -> n.phyId() == q.getKey())
                .map(io.vnpu.api.model.Npu::uuid)
                .findFirst()
                .orElse("");
        slice.add(new SliceDevice(new NpuRef(q.getKey(), uuid), q.getValue()));
      }
      Path file = dir.resolve(io.vnpu.kube.limiter.LimiterFiles.REGION_FILE);
      removeUnrecorded(dir, plan.uid());
      // region and registrations in one step, recorded with PrepareCompleted (the one checkpoint
      // write of the prepare): a crash before that leaves this directory, named after the claim,
      // with no entry; start-up removes it and the registrations whose region is gone, a retry
      // removes it just above
      long key;
      try {
        key = softRegions.prepare(dir, slice, registryName(plan)).key();
      } catch (IOException | RuntimeException failed) {
        // the regions of earlier requests of this claim are registered but not yet recorded
        for (PreparedDevice d : devices) {
          if (d.soft() != null && d.soft().registryKey() != null) {
            try {
              softRegions.remove(Path.of(d.soft().regionDir()), keyOf(d.soft()));
            } catch (IOException | RuntimeException again) {
              failed.addSuppressed(again);
            }
          }
        }
        throw failed;
      }
      for (int i : e.getValue()) {
        devices.set(i, devices.get(i).withSoft(devices.get(i).soft().withKey(key)));
      }
      plan = plan.withDevices(devices);
      log.info(
          "created quota region {} for ResourceClaim {}/{} request {}: {}",
          file,
          plan.namespace(),
          plan.name(),
          request,
          e.getValue().stream()
              .map(devices::get)
              .map(
                  d ->
                      d.deviceName()
                          + " "
                          + d.soft().memoryBytes() / (1 << 20)
                          + " MiB "
                          + d.soft().cores()
                          + "% (weight "
                          + d.soft().weight()
                          + ", cap "
                          + d.soft().capPct()
                          + ")")
              .toList());
    }
    return plan;
  }

  /** A share's registry key, 0 when none was recorded. */
  static long keyOf(SoftShareRecord s) {
    return s.registryKey() == null ? 0 : s.registryKey();
  }

  /**
   * The key to unregister with a share's region: the recorded one, or when none was recorded (an
   * entry written before the region was, by this or the previous release) the key the registries
   * hold for the region still in the directory; 0 when there is none.
   */
  private long keyFor(SoftShareRecord s) throws IOException {
    if (s.registryKey() != null) {
      return s.registryKey();
    }
    Path dir = Path.of(s.regionDir());
    return softRegions.holdsRegion(dir) ? softRegions.registeredKey(dir).orElse(0L) : 0;
  }

  /**
   * Removes a region directory of claim {@code uid} that no entry records, with its registry
   * entries (found through the registries): what a prepare that died before its checkpoint write
   * left. A no-op (one {@code stat}) when there is none.
   *
   * @throws IOException when a registry cannot be read or changed
   */
  private void removeUnrecorded(Path dir, String uid) throws IOException {
    // a missing directory (the usual case) costs a stat, no exception; a dangling link in its place
    // holds no region to unregister and is replaced by SoftSlices#prepare
    if (!io.vnpu.quota.files.HostFiles.presentFollowingLinks(dir)) {
      return;
    }
    long key = softRegions.holdsRegion(dir) ? softRegions.registeredKey(dir).orElse(0L) : 0;
    softRegions.remove(dir, key);
    log.info(
        "removed quota region {} (registry key {}) that a prepare of ResourceClaim uid {} made"
            + " without recording it",
        dir,
        key == 0 ? "none" : Long.toHexString(key),
        uid);
  }

  /**
   * An unprepare of claim {@code uid} that has no entry: removes the region directories named after
   * it ({@code <uid>_<request>}) that no entry of {@code checkpoint} records, with their registry
   * entries (a prepare that died before its record, never retried). Problems are logged: start-up
   * sweeps again.
   */
  void removeUnrecorded(String uid, Checkpoint checkpoint) {
    if (softRegions == null) {
      return;
    }
    try {
      java.util.Set<String> recorded = new java.util.HashSet<>();
      for (PreparedClaim c : checkpoint.preparedClaims().values()) {
        for (PreparedDevice d : c.devices()) {
          if (d.soft() != null) {
            recorded.add(d.soft().regionDir());
          }
        }
      }
      for (String name : softRegions.entries()) {
        Path dir = softRegions.layout().regionRoot().resolve(name);
        if (name.startsWith(uid + "_") && !recorded.contains(dir.toString())) {
          removeUnrecorded(dir, uid);
        }
      }
    } catch (IOException | RuntimeException e) {
      log.warn(
          "removing the unrecorded quota regions of ResourceClaim uid {}: {}", uid, e.getMessage());
    }
  }

  /** Display name of the registry entries (cut to 31 bytes by the registrations). */
  private static String registryName(PreparedClaim plan) {
    return plan.namespace() + "/" + plan.name();
  }

  /**
   * Unregisters an entry's soft shares and removes their region directories, recording the result;
   * the first failure stops and is returned, the entry keeping what is left.
   *
   * @return empty when everything is gone, else the error
   */
  String remove(PreparedClaim entry, Journal journal) throws StateUnavailableException {
    if (entry == null || entry.devices().stream().noneMatch(d -> d.soft() != null)) {
      return "";
    }
    if (softRegions == null) {
      return "soft slicing is not set up on this plugin: the quota regions of "
          + entry.devices().stream()
              .filter(d -> d.soft() != null)
              .map(d -> d.soft().regionDir())
              .distinct()
              .toList()
          + " are left";
    }
    List<PreparedDevice> devices = new ArrayList<>(entry.devices());
    String error = "";
    for (int i = 0; i < devices.size(); i++) {
      PreparedDevice d = devices.get(i);
      SoftShareRecord s = d.soft();
      if (s == null) {
        continue;
      }
      try {
        if (!s.regionDir().isEmpty()) {
          softRegions.remove(Path.of(s.regionDir()), keyFor(s));
        }
        devices.set(i, d.withSoft(null));
      } catch (IOException | RuntimeException e) {
        error =
            "removing the soft share of "
                + d.deviceName()
                + " ("
                + s.regionDir()
                + "): "
                + e.getMessage();
        break;
      }
    }
    if (journal.current().preparedClaims().containsKey(entry.uid())) {
      // lost in a crash, the removal is repeated and finds the shares gone
      journal.record(journal.current().with(entry.withDevices(devices)));
    }
    return error;
  }

  /**
   * Start-up: region directories no entry records (a crash, a lost or rebuilt checkpoint) are
   * removed, and registry entries whose region is gone. A claim rebuilt from its CDI spec keeps the
   * directories named after its UID (its running containers use them) until it is prepared again.
   * Problems are logged: a left-over directory costs disk, never a claim.
   */
  void sweep(Checkpoint checkpoint) {
    if (softRegions == null) {
      return;
    }
    java.util.Set<Path> keep = new java.util.HashSet<>();
    java.util.Set<String> rebuilt = new java.util.HashSet<>();
    for (PreparedClaim c : checkpoint.preparedClaims().values()) {
      if (c.rebuilt()) {
        rebuilt.add(c.uid());
      }
      for (PreparedDevice d : c.devices()) {
        if (d.soft() != null && !d.soft().regionDir().isEmpty()) {
          keep.add(Path.of(d.soft().regionDir()));
        }
      }
    }
    try {
      Path root = softRegions.layout().regionRoot();
      if (java.nio.file.Files.isDirectory(root)) {
        try (var dirs = java.nio.file.Files.list(root)) {
          // <uid>_<request> (SoftSliceLayout.dirOf); <uid>-<request> until this release
          dirs.filter(
                  p ->
                      rebuilt.stream()
                          .anyMatch(
                              u ->
                                  p.getFileName().toString().startsWith(u + "_")
                                      || p.getFileName().toString().startsWith(u + "-")))
              .forEach(keep::add);
        }
      }
      List<String> removed = softRegions.sweep(keep::contains);
      if (!removed.isEmpty()) {
        log.info("removed soft-share state no prepared claim holds: {}", removed);
      }
    } catch (IOException | RuntimeException e) {
      log.warn(
          "cleaning up soft-share state in {}: {}",
          softRegions.layout().regionRoot(),
          e.getMessage());
    }
  }

  /** Start-up: a half-prepared entry's soft shares removed; problems are logged. */
  void releaseQuietly(PreparedClaim c) {
    for (PreparedDevice d : c.devices()) {
      SoftShareRecord s = d.soft();
      if (s == null || softRegions == null) {
        continue;
      }
      try {
        if (!s.regionDir().isEmpty()) {
          softRegions.remove(Path.of(s.regionDir()), keyFor(s));
        }
      } catch (IOException | RuntimeException e) {
        log.warn(
            "releasing the soft share of half-prepared ResourceClaim uid {} on {}: {}",
            c.uid(),
            d.deviceName(),
            e.getMessage());
      }
    }
  }

  /**
   * The soft share a CDI device of ours injects ({@link ClaimSpecBuilder}: the request's region
   * directory mounted at the layout's container region directory), with the registry key the
   * registries hold for that region, so that unprepare removes both and a repeated prepare adopts
   * them; amounts are unknown (0) until the claim is prepared again. {@code device} unchanged when
   * it has no such mount, or the directory is not one of this claim's under the region root.
   */
  PreparedDevice fromCdi(String uid, PreparedDevice device, CdiDevice d, Path spec) {
    if (softRegions == null) {
      return device;
    }
    for (var m : d.containerEdits().mounts()) {
      if (!softRegions.layout().containerRegionDir().equals(m.containerPath())) {
        continue;
      }
      Path dir = Path.of(m.hostPath());
      // <uid>_<request> (SoftSliceLayout.dirOf); <uid>-<request> until this release
      if (!softRegions.layout().regionRoot().equals(dir.getParent())
          || !(dir.getFileName().toString().startsWith(uid + "_")
              || dir.getFileName().toString().startsWith(uid + "-"))) {
        log.warn(
            "{}: CDI device {} mounts {} at {}, not a region directory of this claim;" + " ignored",
            spec,
            d.name(),
            dir,
            m.containerPath());
        return device;
      }
      Long key = null;
      try {
        key = softRegions.registeredKey(dir).orElse(null);
      } catch (IOException | RuntimeException e) {
        log.warn("finding the registry entry of quota region {}: {}", dir, e.getMessage());
      }
      return device.withSoft(new SoftShareRecord(0, 0, 0, 0, null, dir.toString(), 0, key, null));
    }
    return device;
  }
}
