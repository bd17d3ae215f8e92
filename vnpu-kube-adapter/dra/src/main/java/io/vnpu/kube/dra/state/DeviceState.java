package io.vnpu.kube.dra.state;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.vnpu.kube.dra.cdi.CdiDevice;
import io.vnpu.kube.dra.cdi.CdiSpec;
import io.vnpu.kube.dra.cdi.CdiSpecWriter;
import io.vnpu.kube.dra.checkpoint.Checkpoint;
import io.vnpu.kube.dra.checkpoint.CheckpointCorruptException;
import io.vnpu.kube.dra.checkpoint.CheckpointStore;
import io.vnpu.kube.dra.checkpoint.ClaimState;
import io.vnpu.kube.dra.checkpoint.PreparedClaim;
import io.vnpu.kube.dra.checkpoint.PreparedDevice;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.kube.dra.claims.ClaimRef;
import io.vnpu.kube.dra.vnpu.VnpuDriver;
import io.vnpu.kube.softslice.SoftSlices;
import io.vnpu.kube.dra.soft.SoftShareRecord;
import io.vnpu.kube.limiter.LimiterUnavailableException;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.RegionToCreate;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.kube.dra.vnpu.VnpuRecord;
import io.vnpu.kube.dra.devices.NpuDeviceNames;
import io.vnpu.kube.dra.devices.NpuInventory;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claims prepared on this node and the one place that changes them. Prepare runs in one pass
 * under a lock: compute the plan once ({@link ClaimPlanner}) → record it as
 * {@code PrepareStarted} in the checkpoint when it creates node state ({@link #createsNodeState};
 * issue 15: create the vNPU or quota region here, recording what was created) → write the claim's
 * CDI spec ({@link ClaimSpecBuilder}) → record {@code PrepareCompleted}. A failure after {@code PrepareStarted} rolls back what the
 * plan recorded and removes the entry, so nothing leaks and the checkpoint never grows.
 *
 * <p>Idempotent: preparing a completed claim again returns the recorded devices after making sure
 * its CDI spec file still exists (after a reboot a tmpfs CDI directory is empty while the
 * checkpoint survives). Unprepare needs nothing but the checkpoint (the claim may be gone from the
 * API server); an unknown UID is success.
 *
 * <p>Start-up ({@link #open}): a corrupt checkpoint is moved aside with a warning and the state
 * rebuilt from this plugin's CDI spec files, never a crash loop; half-prepared claims are rolled
 * back; completed claims whose CDI file is gone get it written again; a CDI spec of this plugin's
 * kind without a checkpoint entry (a prepare that crashed before recording) is removed.
 */
public final class DeviceState {

  private static final Logger log = LoggerFactory.getLogger(DeviceState.class);

  /** For a plugin that never plans vNPUs: any call is refused. */
  private static final VnpuDriver NO_VNPUS = new VnpuDriver() {
    @Override
    public Vnpu create(int logicId, String template) {
      throw new DeviceException("hard vNPU is not enabled on this plugin");
    }

    @Override
    public void destroy(int logicId, int vnpuId) {
      throw new DeviceException("hard vNPU is not enabled on this plugin");
    }

    @Override
    public List<Vnpu> list(int logicId) {
      return List.of();
    }
  };

  private final CheckpointStore store;
  private final CdiSpecWriter cdi;
  private final ClaimSpecBuilder specs;
  private final ClaimPlanner planner;
  private final NpuInventory inventory;
  private final String poolName;
  private final Duration lockTimeout;
  private final VnpuDriver vnpus;
  private final VnpuReconciler reconciler;
  private final SoftSlices softRegions;
  private final StateLock lock;

  private volatile Checkpoint checkpoint; // changed under lock
  private volatile CheckpointStore.Version seen; // the file version checkpoint was read from or written as
  private String bootId;

  private DeviceState(CheckpointStore store, CdiSpecWriter cdi, ClaimSpecBuilder specs,
      ClaimPlanner planner, NpuInventory inventory, String poolName, Duration lockTimeout,
      VnpuDriver vnpus, SoftSlices softRegions) {
    this.vnpus = vnpus;
    this.reconciler = new VnpuReconciler(vnpus, planner.modes());
    this.softRegions = softRegions;
    this.store = store;
    this.cdi = cdi;
    this.specs = specs;
    this.planner = planner;
    this.inventory = inventory;
    this.poolName = poolName;
    this.lockTimeout = lockTimeout;
    try {
      this.lock = new StateLock(store.file().getParent(), lockTimeout);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Loads (or repairs) the checkpoint and reconciles it with the CDI directory.
   *
   * @param bootId the node's current boot ID ({@link BootId})
   * @throws IOException when the checkpoint cannot be read, moved aside or written
   */
  public static DeviceState open(CheckpointStore store, CdiSpecWriter cdi, ClaimSpecBuilder specs,
      ClaimPlanner planner, NpuInventory inventory, String poolName, String bootId,
      Duration lockTimeout) throws IOException {
    return open(store, cdi, specs, planner, inventory, poolName, bootId, lockTimeout, NO_VNPUS);
  }

  /**
   * As {@link #open(CheckpointStore, CdiSpecWriter, ClaimSpecBuilder, ClaimPlanner,
   * NpuInventory, String, String, Duration)}, with the DCMI calls that create and destroy the
   * hard vNPUs the planner asks for.
   */
  public static DeviceState open(CheckpointStore store, CdiSpecWriter cdi, ClaimSpecBuilder specs,
      ClaimPlanner planner, NpuInventory inventory, String poolName, String bootId,
      Duration lockTimeout, VnpuDriver vnpus) throws IOException {
    return open(store, cdi, specs, planner, inventory, poolName, bootId, lockTimeout, vnpus, null);
  }

  /**
   * As {@link #open(CheckpointStore, CdiSpecWriter, ClaimSpecBuilder, ClaimPlanner,
   * NpuInventory, String, String, Duration, VnpuDriver)}, with the quota regions and compute
   * registry entries of soft shares ({@code softRegions}; null when soft slicing is off).
   */
  public static DeviceState open(CheckpointStore store, CdiSpecWriter cdi, ClaimSpecBuilder specs,
      ClaimPlanner planner, NpuInventory inventory, String poolName, String bootId,
      Duration lockTimeout, VnpuDriver vnpus, SoftSlices softRegions) throws IOException {
    DeviceState s;
    try {
      s = new DeviceState(Objects.requireNonNull(store), Objects.requireNonNull(cdi),
        Objects.requireNonNull(specs), Objects.requireNonNull(planner),
        Objects.requireNonNull(inventory), Objects.requireNonNull(poolName), lockTimeout,
        Objects.requireNonNull(vnpus, "vnpus"), softRegions);
    } catch (java.io.UncheckedIOException e) {
      throw e.getCause();
    }
    try {
      s.lock.acquire("start");
    } catch (StateUnavailableException e) {
      s.lock.close();
      throw new IOException(e.getMessage(), e);
    }
    try {
      s.recover(bootId);
    } catch (IOException | RuntimeException e) {
      s.lock.release();
      s.lock.close();
      throw e;
    }
    s.lock.release();
    return s;
  }

  /**
   * The checkpoint content now: this instance's, or when another instance sharing the data
   * directory has written since, the file as it is (read without the lock: it is replaced by
   * rename, so a read sees one whole version); this instance's when the file cannot be read.
   */
  public Checkpoint snapshot() {
    Checkpoint mine = checkpoint;
    try {
      if (java.util.Objects.equals(store.version().orElse(null), seen)) {
        return mine;
      }
      return store.load(bootId);
    } catch (IOException e) {
      return mine;
    }
  }

  /**
   * Releases the lock file. The claims stay prepared: another instance, or this plugin started
   * again, serves them from the checkpoint.
   */
  public void close() {
    try {
      lock.close();
    } catch (IOException e) {
      log.debug("closing {}: {}", StateLock.FILE_NAME, e.toString());
    }
  }

  /**
   * Prepares one claim read from the API server (already checked against the kubelet's UID).
   *
   * @return the devices, or the claim's error
   * @throws StateUnavailableException when the state lock is not free within the timeout or the
   *     checkpoint cannot be written (the whole call fails, the kubelet retries)
   */
  public PrepareOutcome prepare(ResourceClaim claim) throws StateUnavailableException {
    String uid = claim.getMetadata().getUid();
    acquire("prepare " + uid);
    try {
      boolean vnpusChecked = verifyLocked(); // first: checking may change or drop this entry
      PreparedClaim existing = checkpoint.preparedClaims().get(uid);
      if (existing != null && !vnpusChecked && holdsVnpu(existing)) {
        return PrepareOutcome.failed(vnpusUnchecked("ResourceClaim "
            + claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName()));
      }
      if (existing != null && existing.replayable()) {
        return replay(existing);
      }
      // rebuilt from its CDI spec (no request names): planned again, keeping the vNPUs it holds
      PreparedClaim rebuilt = existing != null && existing.rebuilt() ? existing : null;
      if (existing != null && rebuilt == null) {
        // half-prepared by a call that crashed or timed out
        rollBack(existing);
      }
      PreparedClaim plan;
      java.util.Set<String> adopted = new java.util.HashSet<>(); // live region directories kept
      try {
        plan = planner.plan(claim, inventory.devices());
        if (rebuilt != null) {
          plan = adoptVnpus(plan, rebuilt);
          plan = adoptSoftShares(plan, rebuilt, adopted);
        }
        checkConflicts(plan);
      } catch (PlanException e) {
        rollBack(rebuilt);
        return PrepareOutcome.failed(e.getMessage());
      }
      if (!vnpusChecked && holdsVnpu(plan)) {
        return PrepareOutcome.failed(vnpusUnchecked("ResourceClaim " + plan.namespace() + "/"
            + plan.name()));
      }
      if (createsNodeState(plan)) {
        save(checkpoint.with(plan));
        try {
          plan = createVnpus(plan);
        } catch (DeviceException e) {
          rollBack(checkpoint.preparedClaims().get(uid));
          return PrepareOutcome.failed("ResourceClaim " + plan.namespace() + "/" + plan.name()
              + ": creating the vNPU failed: " + e.getMessage());
        } catch (StateUnavailableException e) {
          abandon(checkpoint.preparedClaims().get(uid)); // the unrecorded one is destroyed already
          throw e;
        }
        try {
          plan = createSoftShares(plan, adopted);
        } catch (IOException | LimiterUnavailableException | RuntimeException e) {
          rollBack(checkpoint.preparedClaims().get(uid));
          return PrepareOutcome.failed("ResourceClaim " + plan.namespace() + "/" + plan.name()
              + ": preparing the soft share failed: " + e.getMessage());
        }
      }
      try {
        writeSpec(plan);
      } catch (IOException e) {
        rollBack(plan);
        return PrepareOutcome.failed(e.getMessage());
      }
      try {
        save(checkpoint.with(plan.withState(ClaimState.PrepareCompleted)));
      } catch (StateUnavailableException e) {
        // the registry keys are only in this plan: a later roll-back from the checkpoint would
        // leave the registry entries (and a retry would register the share twice)
        abandon(plan);
        throw e;
      }
      log.info("prepared ResourceClaim {}/{} (uid {}): {}", plan.namespace(), plan.name(), uid,
          plan.devices().stream().map(PreparedDevice::deviceName).toList());
      return PrepareOutcome.prepared(plan.devices());
    } finally {
      lock.release();
    }
  }

  /**
   * Unprepares one claim: removes its CDI spec and its checkpoint entry.
   *
   * @return empty on success (also for a claim never prepared), else the error
   * @throws StateUnavailableException when the state lock is not free within the timeout
   */
  public String unprepare(ClaimRef ref) throws StateUnavailableException {
    acquire("unprepare " + ref.uid());
    try {
      PreparedClaim existing = checkpoint.preparedClaims().get(ref.uid());
      if (existing != null && holdsVnpu(existing)) {
        if (!verifyLocked()) {
          return vnpusUnchecked("unprepare of ResourceClaim " + ref);
        }
        existing = checkpoint.preparedClaims().get(ref.uid()); // checking may change or drop it
      }
      if (existing == null) {
        // never prepared here, or unprepared before: the kubelet may ask again
        cdi.delete(ref.uid());
        return "";
      }
      String refused = destroyVnpus(existing);
      if (!refused.isEmpty()) {
        return "unprepare of ResourceClaim " + ref + " failed: " + refused;
      }
      refused = removeSoftShares(checkpoint.preparedClaims().get(ref.uid()));
      if (!refused.isEmpty()) {
        return "unprepare of ResourceClaim " + ref + " failed: " + refused;
      }
      rollBack(checkpoint.preparedClaims().get(ref.uid()));
      log.info("unprepared ResourceClaim {}", ref);
      return "";
    } catch (IOException | StateUnavailableException e) {
      return "unprepare of ResourceClaim " + ref + " failed: " + e.getMessage();
    } finally {
      lock.release();
    }
  }

  /**
   * Checks the hard vNPU records against DCMI when the checkpoint asks for it
   * ({@link Checkpoint#vnpuCheckPending}: rebuilt from CDI specs, node rebooted, or a half-prepared
   * vNPU that could not be released at start), with {@link VnpuReconciler}'s rules; a no-op
   * otherwise. Call when DCMI has opened and whenever the NPUs change; prepare and unprepare of
   * claims holding vNPUs also try it and fail (the kubelet retries) while it cannot run.
   *
   * @return true when the records are checked (nothing pending any more)
   */
  public boolean verifyVnpus() {
    try {
      acquire("check vNPUs");
    } catch (StateUnavailableException e) {
      log.warn("checking the vNPU records deferred: {}", e.getMessage());
      return false;
    }
    try {
      return verifyLocked();
    } finally {
      lock.release();
    }
  }

  // ---- under lock ----

  private boolean verifyLocked() {
    if (!checkpoint.vnpuCheckPending()) {
      return true;
    }
    if (!inventory.known()) {
      return false;
    }
    VnpuReconciler.Outcome o;
    try {
      o = reconciler.reconcile(checkpoint, inventory.devices());
    } catch (RuntimeException e) {
      // DCMI cannot list (nothing changed), or a binding failure midway: the check is retried
      // and finds again what was done (an unrecorded vNPU is swept, a missing one re-created)
      log.info("vNPU records not checked yet: {}", e.getMessage());
      return false;
    }
    // CDI first, then the checkpoint: a crash in between checks again and finds the same
    for (String uid : o.dropped()) {
      try {
        cdi.delete(uid);
      } catch (IOException e) {
        log.warn("{}", e.getMessage());
      }
    }
    for (PreparedClaim c : o.checkpoint().preparedClaims().values()) {
      if (c.state() == ClaimState.PrepareCompleted
          && (o.rewrite().contains(c.uid()) || !cdi.exists(c.uid()))) {
        try {
          writeSpec(c);
          log.info("wrote the CDI spec of ResourceClaim uid {} for its checked vNPUs", c.uid());
        } catch (IOException e) {
          log.warn("writing the CDI spec of ResourceClaim uid {} failed (the kubelet's next"
              + " prepare retries): {}", c.uid(), e.getMessage());
        }
      }
    }
    try {
      save(o.checkpoint());
    } catch (StateUnavailableException e) {
      log.warn("vNPU records checked but not saved (checked again): {}", e.getMessage());
      return false;
    }
    log.info("vNPU records checked through DCMI: {} prepared claims, {} CDI specs rewritten, {}"
        + " claims dropped", checkpoint.preparedClaims().size(), o.rewrite().size(),
        o.dropped().size());
    return true;
  }

  private static String vnpusUnchecked(String what) {
    return what + ": waiting until the hard vNPUs recorded before the restart are checked"
        + " through DCMI (DCMI has not answered yet); retried";
  }

  private static boolean holdsVnpu(PreparedClaim c) {
    return c.devices().stream().anyMatch(d -> d.vnpu() != null);
  }

  /**
   * The plan with the vNPUs of {@code rebuilt} (same claim, rebuilt from its CDI spec) it asks
   * for: same device, share and template. The others are destroyed (an allocation never changes,
   * so there should be none); failures are logged.
   */
  private PreparedClaim adoptVnpus(PreparedClaim plan, PreparedClaim rebuilt) {
    List<PreparedDevice> held = new ArrayList<>(rebuilt.devices());
    List<PreparedDevice> devices = new ArrayList<>(plan.devices());
    for (int i = 0; i < devices.size(); i++) {
      PreparedDevice d = devices.get(i);
      if (d.vnpu() == null) {
        continue;
      }
      for (java.util.Iterator<PreparedDevice> it = held.iterator(); it.hasNext(); ) {
        PreparedDevice h = it.next();
        VnpuRecord v = h.vnpu();
        if (v != null && v.vnpuId() != null && v.resolved()
            && h.deviceName().equals(d.deviceName()) && Objects.equals(h.shareId(), d.shareId())
            && v.template().equals(d.vnpu().template())) {
          devices.set(i, d.withVnpu(d.vnpu().created(v.vnpuId())));
          it.remove();
          log.info("ResourceClaim {}/{} (uid {}) keeps vNPU {} ({}) on {}", plan.namespace(),
              plan.name(), plan.uid(), v.vnpuId(), v.template(), d.deviceName());
          break;
        }
      }
    }
    for (PreparedDevice h : held) {
      VnpuRecord v = h.vnpu();
      if (v == null || v.vnpuId() == null || !v.resolved()) {
        continue;
      }
      try {
        vnpus.destroy(v.logicId(), v.vnpuId());
        log.info("destroyed vNPU {} of rebuilt ResourceClaim uid {}: its allocation no longer"
            + " asks for it", v.vnpuId(), plan.uid());
      } catch (DeviceException e) {
        log.warn("vNPU {} of rebuilt ResourceClaim uid {} left: {}", v.vnpuId(), plan.uid(),
            e.getMessage());
      }
    }
    return plan.withDevices(devices);
  }

  /**
   * The plan with the live quota regions of {@code rebuilt} (same claim, rebuilt from its CDI
   * spec after the checkpoint was lost) it asks for: a region directory of the plan that the
   * rebuilt entry records and that still holds its region is kept as it is, with the registry key
   * found for it ({@link SoftSlices#registeredKey}), and added to {@code adopted} so that it is
   * not created again (a running container keeps its region, the registry its one entry). Rebuilt
   * regions the plan does not ask for are removed; failures are logged.
   */
  private PreparedClaim adoptSoftShares(PreparedClaim plan, PreparedClaim rebuilt,
      java.util.Set<String> adopted) {
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
      if (d.soft() == null || !held.containsKey(d.soft().regionDir())
          || !softRegions.holdsRegion(Path.of(d.soft().regionDir()))) {
        continue;
      }
      Long key = held.get(d.soft().regionDir());
      devices.set(i, d.withSoft(key == null ? d.soft() : d.soft().withKey(key)));
      if (adopted.add(d.soft().regionDir())) {
        log.info("ResourceClaim {}/{} (uid {}) keeps its quota region {} (registry key {})",
            plan.namespace(), plan.name(), plan.uid(), d.soft().regionDir(),
            key == null ? "none" : Long.toHexString(key));
      }
    }
    for (var h : held.entrySet()) {
      if (adopted.contains(h.getKey())) {
        continue;
      }
      try {
        softRegions.remove(Path.of(h.getKey()), h.getValue());
        log.info("removed quota region {} of rebuilt ResourceClaim uid {}: its allocation no"
            + " longer asks for it", h.getKey(), plan.uid());
      } catch (IOException | RuntimeException e) {
        log.warn("quota region {} of rebuilt ResourceClaim uid {} left: {}", h.getKey(),
            plan.uid(), e.getMessage());
      }
    }
    return plan.withDevices(devices);
  }

  private PrepareOutcome replay(PreparedClaim existing) throws StateUnavailableException {
    if (!cdi.exists(existing.uid())) {
      try {
        writeSpec(existing);
        log.info("re-created the missing CDI spec of ResourceClaim {}/{} (uid {})",
            existing.namespace(), existing.name(), existing.uid());
      } catch (IOException e) {
        return PrepareOutcome.failed(e.getMessage());
      }
    }
    return PrepareOutcome.prepared(existing.devices());
  }

  private void checkConflicts(PreparedClaim plan) throws PlanException {
    checkOneDevicePerChip(plan);
    checkSoftFits(plan);
    java.util.Map<String, Long> mine = new java.util.HashMap<>();
    for (PreparedDevice d : plan.devices()) {
      if (d.vnpu() == null || d.adminAccess()) {
        continue;
      }
      long chipMib = inventory.find(d.deviceName()).map(n -> n.hbmMib()).orElse(0L);
      long want = mine.merge(d.deviceName(), d.vnpu().memoryMib(), Long::sum);
      long used = sharedMib(d.deviceName(), plan.uid(), chipMib);
      if (used + want > chipMib) {
        throw new PlanException("ResourceClaim " + plan.namespace() + "/" + plan.name()
            + ": device " + d.deviceName() + " share " + d.shareId() + ": vNPU template "
            + d.vnpu().template() + " (" + d.vnpu().memoryMib() + " MiB) does not fit: "
            + used + " of " + chipMib + " MiB already held by prepared claims");
      }
    }
    checkWholeChipsExclusive(plan);
  }

  /**
   * A device held whole (no shareID, or a share that took the whole chip: neither vNPU nor soft
   * share, so no limit at all) is held by nothing else, in this claim or another; the scheduler
   * guarantees it, a stale allocation or a scheduler bug must not hand one chip unlimited to one
   * container and shared to others. Entries rebuilt from CDI specs without their amounts are only
   * judged when they are whole devices (their shares' sizes are unknown until prepared again).
   */
  private void checkWholeChipsExclusive(PreparedClaim plan) throws PlanException {
    List<PreparedDevice> mine = plan.devices();
    for (int i = 0; i < mine.size(); i++) {
      PreparedDevice d = mine.get(i);
      if (d.adminAccess()) {
        continue;
      }
      for (int j = 0; j < i; j++) {
        PreparedDevice e = mine.get(j);
        if (e.deviceName().equals(d.deviceName()) && !e.adminAccess()
            && (heldWhole(plan, d) || heldWhole(plan, e))) {
          throw new PlanException("ResourceClaim " + plan.namespace() + "/" + plan.name()
              + ": device " + d.deviceName() + " is allocated twice (shareID " + e.shareId()
              + " and " + d.shareId() + ") and one of them is the whole chip");
        }
      }
      for (PreparedClaim other : checkpoint.preparedClaims().values()) {
        if (other.uid().equals(plan.uid())) {
          continue;
        }
        for (PreparedDevice o : other.devices()) {
          if (!o.deviceName().equals(d.deviceName()) || o.adminAccess()) {
            continue;
          }
          if (d.shareId() == null && o.shareId() == null) {
            throw new PlanException("device " + d.deviceName() + " is already prepared for"
                + " ResourceClaim " + other.namespace() + "/" + other.name() + " (uid "
                + other.uid() + ")");
          }
          if (heldWhole(plan, d) || heldWhole(other, o)) {
            throw new PlanException("ResourceClaim " + plan.namespace() + "/" + plan.name()
                + ": device " + d.deviceName() + " shareID " + d.shareId() + ": the device is"
                + " held by ResourceClaim " + other.namespace() + "/" + other.name() + " (uid "
                + other.uid() + ", shareID " + o.shareId() + ") and one of them is the whole"
                + " chip");
          }
        }
      }
    }
  }

  /** Whether {@code d} of {@code c} is the whole device without any limit. */
  private static boolean heldWhole(PreparedClaim c, PreparedDevice d) {
    if (d.shareId() == null) {
      return true;
    }
    return d.soft() == null && d.vnpu() == null && !c.rebuilt();
  }

  /**
   * A chip offered through two devices (hard {@code npu-<phy>} and soft {@code npu-<phy>-soft},
   * exclusive through the chip's shared counters) is used through one of them at a time: the
   * scheduler guarantees it, this checks it again on the node, because a scheduler that does not
   * count a shared device's counters across scheduling cycles (before kubernetes#139040) could
   * allocate both. Admin access is monitoring only and never conflicts.
   */
  private void checkOneDevicePerChip(PreparedClaim plan) throws PlanException {
    java.util.Map<Integer, String> mine = new java.util.HashMap<>();
    for (PreparedDevice d : plan.devices()) {
      if (d.adminAccess()) {
        continue;
      }
      String before = mine.putIfAbsent(d.physicalId(), d.deviceName());
      if (before != null && !before.equals(d.deviceName())) {
        throw new PlanException("ResourceClaim " + plan.namespace() + "/" + plan.name()
            + ": devices " + before + " and " + d.deviceName() + " are the same chip (phy ID "
            + d.physicalId() + ") in different sharing modes");
      }
      for (PreparedClaim other : checkpoint.preparedClaims().values()) {
        if (other.uid().equals(plan.uid())) {
          continue;
        }
        for (PreparedDevice o : other.devices()) {
          if (o.physicalId() == d.physicalId() && !o.adminAccess()
              && !o.deviceName().equals(d.deviceName())) {
            throw new PlanException("ResourceClaim " + plan.namespace() + "/" + plan.name()
                + ": device " + d.deviceName() + ": its chip (phy ID " + d.physicalId()
                + ") is held through device " + o.deviceName() + " by ResourceClaim " + other.namespace()
                + "/" + other.name() + " (uid " + other.uid() + "); one sharing mode per chip"
                + " at a time");
          }
        }
      }
    }
  }

  /**
   * The scheduler never charges a chip more than its capacities; this checks it again on the node
   * (a stale allocation, or capacities published differently before a restart, must not make two
   * limiters promise the same memory): the soft shares prepared on a device, with the plan's, hold
   * at most its HBM and 100 % of AI-core time.
   */
  private void checkSoftFits(PreparedClaim plan) throws PlanException {
    java.util.Map<String, long[]> want = new java.util.TreeMap<>();
    for (PreparedDevice d : plan.devices()) {
      if (d.soft() != null && !d.adminAccess()) {
        long[] w = want.computeIfAbsent(d.deviceName(), k -> new long[2]);
        w[0] += d.soft().memoryBytes();
        w[1] += d.soft().cores();
      }
    }
    for (var e : want.entrySet()) {
      long mem = e.getValue()[0];
      long cores = e.getValue()[1];
      for (PreparedClaim other : checkpoint.preparedClaims().values()) {
        if (other.uid().equals(plan.uid())) {
          continue;
        }
        for (PreparedDevice o : other.devices()) {
          if (o.deviceName().equals(e.getKey()) && o.soft() != null && !o.adminAccess()) {
            mem += o.soft().memoryBytes();
            cores += o.soft().cores();
          }
        }
      }
      long hbm = inventory.find(e.getKey()).map(n -> n.hbmBytes()).orElse(0L);
      if (mem > hbm || cores > 100) {
        throw new PlanException("ResourceClaim " + plan.namespace() + "/" + plan.name()
            + ": device " + e.getKey() + ": soft shares would hold " + mem / (1 << 20) + " of "
            + hbm / (1 << 20) + " MiB and " + cores + " of 100 % AI-core time with the ones"
            + " already prepared");
      }
    }
  }

  /**
   * Whether preparing {@code plan} creates state on the node that must be recorded as
   * {@code PrepareStarted} before it is created, so that a crash leaves a record to roll back.
   * Whole NPUs create none: the CDI spec is the only side effect, it is named after the claim UID
   * (a retry overwrites it) and a spec without a checkpoint entry is removed at start. This saves
   * one checkpoint fsync per prepare. Issue 15: a vNPU or quota region is recorded here.
   */
  private static boolean createsNodeState(PreparedClaim plan) {
    return plan.devices().stream().anyMatch(d -> d.vnpu() != null || d.soft() != null);
  }

  /**
   * Creates the quota region of every request with soft shares (entries in the container's device
   * order; a device of the request without a share is unlimited), records its epoch as the
   * shares' registry key, then registers each compute-limited share in its NPU's registry. The
   * region directories were recorded with {@code PrepareStarted}, so a crash leaves paths to
   * remove; the key is recorded before registering, so unregistering never misses an entry.
   *
   * @throws LimiterUnavailableException naming the limiter file when the limiter is not usable
   *     (nothing is created then)
   */
  private PreparedClaim createSoftShares(PreparedClaim plan, java.util.Set<String> adopted)
      throws IOException, LimiterUnavailableException, StateUnavailableException {
    if (plan.devices().stream().noneMatch(d -> d.soft() != null && !adopted.contains(
        d.soft().regionDir()))) {
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
      java.util.TreeMap<Integer, SliceShare.SoftQuota> quotas = new java.util.TreeMap<>();
      for (PreparedDevice d : plan.devices()) {
        if (d.requestNames().contains(request)) {
          quotas.putIfAbsent(d.physicalId(), new SliceShare.SoftQuota(0, 0, 0,
              io.vnpu.api.model.Priority.NORMAL));
        }
      }
      for (int i : e.getValue()) {
        PreparedDevice d = devices.get(i);
        SoftShareRecord s = d.soft();
        quotas.put(d.physicalId(), new SliceShare.SoftQuota(s.memoryBytes(), s.weight(),
            s.capPct(), s.priority()));
      }
      List<SliceDevice> slice = new ArrayList<>();
      for (var q : quotas.entrySet()) {
        String uuid = inventory.devices().values().stream()
            .filter(n -> n.phyId() == q.getKey()).map(io.vnpu.api.model.Npu::uuid).findFirst()
            .orElse("");
        slice.add(new SliceDevice(new NpuRef(q.getKey(), uuid), q.getValue()));
      }
      Path file = dir.resolve(io.vnpu.kube.limiter.LimiterFiles.REGION_FILE);
      // region and registrations in one step. The key is recorded with PrepareCompleted (one
      // checkpoint write less): a crash before that leaves a PrepareStarted entry naming the
      // directory, which start-up removes, and the sweep then drops the registrations whose
      // region is gone
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
      log.info("created quota region {} for ResourceClaim {}/{} request {}: {}", file,
          plan.namespace(), plan.name(), request, e.getValue().stream().map(devices::get)
              .map(d -> d.deviceName() + " " + d.soft().memoryBytes() / (1 << 20) + " MiB "
                  + d.soft().cores() + "% (weight " + d.soft().weight() + ", cap "
                  + d.soft().capPct() + ")").toList());
    }
    return plan;
  }

  /** A share's registry key, 0 when none was recorded. */
  private static long keyOf(SoftShareRecord s) {
    return s.registryKey() == null ? 0 : s.registryKey();
  }

  /** Display name of the registry entries (cut to 31 bytes by the registrations). */
  private static String registryName(PreparedClaim plan) {
    return plan.namespace() + "/" + plan.name();
  }

  /**
   * Unregisters an entry's soft shares and removes their region directories, recording the
   * result; the first failure stops and is returned, the entry keeping what is left.
   *
   * @return empty when everything is gone, else the error
   */
  private String removeSoftShares(PreparedClaim entry) throws StateUnavailableException {
    if (entry == null || entry.devices().stream().noneMatch(d -> d.soft() != null)) {
      return "";
    }
    if (softRegions == null) {
      return "soft slicing is not set up on this plugin: the quota regions of "
          + entry.devices().stream().filter(d -> d.soft() != null)
              .map(d -> d.soft().regionDir()).distinct().toList() + " are left";
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
          softRegions.remove(Path.of(s.regionDir()), keyOf(s));
        }
        devices.set(i, d.withSoft(null));
      } catch (IOException | RuntimeException e) {
        error = "removing the soft share of " + d.deviceName() + " (" + s.regionDir() + "): "
            + e.getMessage();
        break;
      }
    }
    if (checkpoint.preparedClaims().containsKey(entry.uid())) {
      save(checkpoint.with(entry.withDevices(devices)));
    }
    return error;
  }

  /**
   * Creates the plan's vNPUs one by one, recording each vNPU ID in the checkpoint as soon as DCMI
   * returns it, so a crash leaves at most the one being created unrecorded (found again at start
   * by its template, see {@link #recover}).
   */
  private PreparedClaim createVnpus(PreparedClaim plan) throws StateUnavailableException {
    List<PreparedDevice> devices = new ArrayList<>(plan.devices());
    for (int i = 0; i < devices.size(); i++) {
      PreparedDevice d = devices.get(i);
      if (d.vnpu() == null || d.vnpu().vnpuId() != null) {
        continue;
      }
      Vnpu v = vnpus.create(d.vnpu().logicId(), d.vnpu().template());
      devices.set(i, d.withVnpu(d.vnpu().created(v.vnpuId())));
      plan = plan.withDevices(devices);
      try {
        save(checkpoint.with(plan));
      } catch (StateUnavailableException e) {
        // not recorded: destroyed now rather than left for the start-up sweep
        try {
          vnpus.destroy(d.vnpu().logicId(), v.vnpuId());
        } catch (DeviceException again) {
          log.warn("vNPU {} on {} created but neither recorded nor destroyed: {}", v.vnpuId(),
              d.deviceName(), again.getMessage());
        }
        throw e;
      }
      log.info("created vNPU {} ({}) on {} for ResourceClaim {}/{} share {}", v.vnpuId(),
          d.vnpu().template(), d.deviceName(), plan.namespace(), plan.name(), d.shareId());
    }
    return plan;
  }

  /**
   * Destroys the vNPUs an entry holds, recording each destruction; the first DCMI refusal
   * (e.g. still in use by a container) stops and is returned, the entry keeping what is left.
   *
   * @return empty when every vNPU is gone, else the error
   */
  private String destroyVnpus(PreparedClaim entry) throws StateUnavailableException {
    List<PreparedDevice> devices = new ArrayList<>(entry.devices());
    String error = "";
    for (int i = 0; i < devices.size(); i++) {
      PreparedDevice d = devices.get(i);
      if (d.vnpu() == null || d.vnpu().vnpuId() == null) {
        continue;
      }
      try {
        vnpus.destroy(d.vnpu().logicId(), d.vnpu().vnpuId());
        log.info("destroyed vNPU {} on {} (ResourceClaim uid {})", d.vnpu().vnpuId(),
            d.deviceName(), entry.uid());
        devices.set(i, d.withVnpu(new VnpuRecord(d.vnpu().logicId(), d.vnpu().template(),
            d.vnpu().memoryMib(), null)));
      } catch (DeviceException e) {
        error = "destroying vNPU " + d.vnpu().vnpuId() + " on " + d.deviceName() + ": "
            + e.getMessage();
        break;
      }
    }
    if (checkpoint.preparedClaims().containsKey(entry.uid())) {
      save(checkpoint.with(entry.withDevices(devices)));
    }
    return error;
  }

  /**
   * The memory (MiB) of chip {@code deviceName} that prepared claims other than {@code uid}
   * hold through shares: a vNPU's template memory, a share without vNPU the whole chip.
   */
  private long sharedMib(String deviceName, String uid, long chipMib) {
    long used = 0;
    for (PreparedClaim other : checkpoint.preparedClaims().values()) {
      if (other.uid().equals(uid)) {
        continue;
      }
      for (PreparedDevice o : other.devices()) {
        if (o.deviceName().equals(deviceName) && !o.adminAccess() && o.shareId() != null) {
          used += o.vnpu() != null ? o.vnpu().memoryMib() : chipMib;
        }
      }
    }
    return used;
  }

  private void writeSpec(PreparedClaim plan) throws IOException {
    Optional<CdiSpec> spec = specs.build(plan);
    if (spec.isPresent()) {
      cdi.write(plan.uid(), spec.get());
    }
  }

  /**
   * A prepare that cannot record its progress (the checkpoint cannot be written): what it
   * created, as {@code created} knows it (vNPU IDs, registry keys), is released now and the claim
   * forgotten in memory, so a retry neither registers the share twice nor leaks the vNPU. The
   * {@code PrepareStarted} entry on disk, if any, is rolled back at the next start (any later
   * successful write replaces it first). Problems are logged.
   */
  private void abandon(PreparedClaim created) {
    if (created == null) {
      return;
    }
    for (PreparedDevice d : created.devices()) {
      VnpuRecord v = d.vnpu();
      if (v != null && v.vnpuId() != null) {
        try {
          vnpus.destroy(v.logicId(), v.vnpuId());
        } catch (DeviceException e) {
          log.warn("ResourceClaim uid {}: destroying vNPU {} on {}: {}", created.uid(),
              v.vnpuId(), d.deviceName(), e.getMessage());
        }
      }
    }
    releaseSoftQuietly(created);
    try {
      cdi.delete(created.uid());
    } catch (IOException e) {
      log.warn("{}", e.getMessage());
    }
    checkpoint = checkpoint.without(created.uid());
  }

  /** Undoes what an entry recorded (issue 15: destroy its vNPU) and forgets it. */
  private void rollBack(PreparedClaim entry) throws StateUnavailableException {
    if (entry == null) {
      return;
    }
    String refused = destroyVnpus(entry);
    if (!refused.isEmpty()) {
      log.warn("rolling back ResourceClaim uid {}: {}; the vNPU is left on the chip",
          entry.uid(), refused);
    }
    entry = checkpoint.preparedClaims().getOrDefault(entry.uid(), entry);
    refused = removeSoftShares(entry);
    if (!refused.isEmpty()) {
      log.warn("rolling back ResourceClaim uid {}: {}", entry.uid(), refused);
    }
    try {
      cdi.delete(entry.uid());
    } catch (IOException e) {
      log.warn("{}", e.getMessage());
    }
    save(checkpoint.without(entry.uid()));
  }

  private void save(Checkpoint next) throws StateUnavailableException {
    try {
      store.save(next);
      seen = store.version().orElse(null);
      checkpoint = next;
    } catch (IOException e) {
      throw new StateUnavailableException(e.getMessage(), e);
    }
  }

  /**
   * Takes the state lock and reads the checkpoint again when another instance sharing the data
   * directory (a rolling update) has replaced it since this one read or wrote it: every change is
   * a read-modify-write of the newest version under the lock, so neither loses the other's claims.
   */
  private void acquire(String what) throws StateUnavailableException {
    lock.acquire(what);
    try {
      CheckpointStore.Version now = store.version().orElse(null);
      if (!java.util.Objects.equals(now, seen)) {
        Checkpoint read = store.load(bootId);
        checkpoint = read;
        seen = now;
      }
    } catch (IOException e) {
      lock.release();
      throw new StateUnavailableException(what + ": reading the checkpoint written by another"
          + " instance failed: " + e.getMessage(), e);
    }
  }

  // ---- start-up ----

  private void recover(String bootId) throws IOException {
    Checkpoint cp;
    try {
      cp = store.load(bootId);
    } catch (CheckpointCorruptException e) {
      Path aside = store.quarantine();
      log.warn("{}; moved it to {} and rebuilding the prepared claims from the CDI specs in the"
          + " CDI directory", e.getMessage(), aside);
      // the vNPUs a lost record held are found through DCMI once it is open
      cp = rebuildFromCdi(bootId).withVnpuCheckPending(true);
    }
    if (!cp.nodeBootId().isEmpty() && !cp.nodeBootId().equals(bootId)) {
      log.info("node rebooted since the checkpoint was written (boot ID {} -> {}); re-creating the"
          + " CDI specs of prepared claims, their vNPUs are checked through DCMI once it is open",
          cp.nodeBootId(), bootId);
      cp = cp.withVnpuCheckPending(true);
    }
    if (!cp.vnpuCheckPending() && cp.preparedClaims().values().stream()
        .anyMatch(DeviceState::holdsVnpu)) {
      // a vNPU may have been destroyed outside the plugin while it was down (npu-smi, a driver
      // reload): never report one prepared without DCMI listing it
      log.info("checking the recorded vNPUs through DCMI once it is open");
      cp = cp.withVnpuCheckPending(true);
    }
    this.bootId = bootId;
    checkpoint = cp.withBootId(bootId);
    for (PreparedClaim c : List.copyOf(checkpoint.preparedClaims().values())) {
      if (c.state() == ClaimState.PrepareStarted) {
        log.info("rolling back half-prepared ResourceClaim {}/{} (uid {})", c.namespace(),
            c.name(), c.uid());
        if (!releaseHalfPrepared(c)) {
          checkpoint = checkpoint.withVnpuCheckPending(true); // swept once DCMI answers
        }
        releaseSoftQuietly(c);
        try {
          cdi.delete(c.uid());
        } catch (IOException e) {
          log.warn("{}", e.getMessage());
        }
        checkpoint = checkpoint.without(c.uid());
      } else if (!cdi.exists(c.uid())
          && !(checkpoint.vnpuCheckPending() && holdsVnpu(c))) { // else written once checked
        try {
          writeSpec(c);
          log.info("re-created the missing CDI spec of ResourceClaim {}/{} (uid {})",
              c.namespace(), c.name(), c.uid());
        } catch (IOException e) {
          // the next NodePrepareResources of the claim tries again and reports the error
          log.warn("re-creating the CDI spec of ResourceClaim {}/{} (uid {}) failed: {}",
              c.namespace(), c.name(), c.uid(), e.getMessage());
        }
      }
    }
    for (String uid : cdi.claimUids()) {
      if (!checkpoint.preparedClaims().containsKey(uid)) {
        // written by a prepare that crashed before recording it: the kubelet retries that
        // prepare (and gets a new file) or the claim is gone
        log.info("removing CDI spec {}: no prepared claim with uid {}", cdi.specPath(uid), uid);
        try {
          cdi.delete(uid);
        } catch (IOException e) {
          log.warn("{}", e.getMessage());
        }
      }
    }
    sweepSoftShares();
    store.save(checkpoint);
    seen = store.version().orElse(null);
  }

  /**
   * Start-up: region directories no entry records (a crash, a lost or rebuilt checkpoint) are
   * removed, and registry entries whose region is gone. A claim rebuilt from its CDI spec keeps
   * the directories named after its UID (its running containers use them) until it is prepared
   * again. Problems are logged: a left-over directory costs disk, never a claim.
   */
  private void sweepSoftShares() {
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
          dirs.filter(p -> rebuilt.stream().anyMatch(u -> p.getFileName().toString()
              .startsWith(u + "_") || p.getFileName().toString().startsWith(u + "-")))
              .forEach(keep::add);
        }
      }
      List<String> removed = softRegions.sweep(keep::contains);
      if (!removed.isEmpty()) {
        log.info("removed soft-share state no prepared claim holds: {}", removed);
      }
    } catch (IOException | RuntimeException e) {
      log.warn("cleaning up soft-share state in {}: {}", softRegions.layout().regionRoot(),
          e.getMessage());
    }
  }

  /**
   * Destroys the vNPUs of a half-prepared entry: recorded ones by ID, and for a device whose
   * creation was not recorded, a vNPU of its template on its chip that no other entry holds and
   * no container uses (the one a crash left between DCMI's answer and the checkpoint write).
   * Lenient: DCMI problems are logged.
   *
   * @return false when DCMI could not be asked (a vNPU may be left for the sweep)
   */
  private boolean releaseHalfPrepared(PreparedClaim c) {
    boolean done = true;
    for (PreparedDevice d : c.devices()) {
      VnpuRecord v = d.vnpu();
      if (v == null) {
        continue;
      }
      try {
        if (v.vnpuId() != null) {
          vnpus.destroy(v.logicId(), v.vnpuId());
          log.info("destroyed vNPU {} of half-prepared ResourceClaim uid {}", v.vnpuId(),
              c.uid());
          continue;
        }
        java.util.Set<Integer> held = new java.util.HashSet<>();
        for (PreparedClaim o : checkpoint.preparedClaims().values()) {
          for (PreparedDevice od : o.devices()) {
            if (od.vnpu() != null && od.vnpu().vnpuId() != null) {
              held.add(od.vnpu().vnpuId());
            }
          }
        }
        for (Vnpu found : vnpus.list(v.logicId())) {
          if (found.templateName().equals(v.template()) && !found.inUse()
              && !held.contains(found.vnpuId())) {
            vnpus.destroy(v.logicId(), found.vnpuId());
            log.info("destroyed unrecorded vNPU {} ({}) of half-prepared ResourceClaim uid {}",
                found.vnpuId(), v.template(), c.uid());
            break;
          }
        }
      } catch (DeviceException e) {
        done = false;
        log.warn("releasing the vNPU of half-prepared ResourceClaim uid {} on {}: {}", c.uid(),
            d.deviceName(), e.getMessage());
      }
    }
    return done;
  }

  /** Start-up: a half-prepared entry's soft shares removed; problems are logged. */
  private void releaseSoftQuietly(PreparedClaim c) {
    for (PreparedDevice d : c.devices()) {
      SoftShareRecord s = d.soft();
      if (s == null || softRegions == null) {
        continue;
      }
      try {
        if (!s.regionDir().isEmpty()) {
          softRegions.remove(Path.of(s.regionDir()), keyOf(s));
        }
      } catch (IOException | RuntimeException e) {
        log.warn("releasing the soft share of half-prepared ResourceClaim uid {} on {}: {}",
            c.uid(), d.deviceName(), e.getMessage());
      }
    }
  }

  private Checkpoint rebuildFromCdi(String bootId) throws IOException {
    Checkpoint cp = Checkpoint.empty(bootId);
    for (String uid : cdi.claimUids()) {
      CdiSpec spec;
      try {
        spec = cdi.read(uid);
      } catch (IOException e) {
        log.warn("{}; left as it is", e.getMessage());
        continue;
      }
      List<PreparedDevice> devices = new ArrayList<>();
      for (CdiDevice d : spec.devices()) {
        Optional<PreparedDevice> pd = deviceOf(uid, d.name()).map(p -> withCdiVnpu(p, d))
            .map(p -> withCdiSoftShare(uid, p, d));
        if (pd.isEmpty()) {
          log.warn("{}: CDI device {} is not one this plugin writes; ignored", cdi.specPath(uid),
              d.name());
          continue;
        }
        devices.add(pd.get());
      }
      cp = cp.with(new PreparedClaim(uid, "", "", ClaimState.PrepareCompleted, devices, true));
      log.info("rebuilt prepared ResourceClaim uid {} from {}: {}", uid, cdi.specPath(uid),
          devices.stream().map(PreparedDevice::deviceName).toList());
    }
    return cp;
  }

  /**
   * The hard vNPU a CDI device of ours injects ({@link ClaimSpecBuilder}: host node
   * {@code vdavinci<id>}, {@code ASCEND_VNPU_TEMPLATE=<template>}), recorded with its chip
   * {@link VnpuRecord#UNRESOLVED} until checked through DCMI; {@code device} unchanged for a whole
   * NPU.
   */
  private static PreparedDevice withCdiVnpu(PreparedDevice device, CdiDevice d) {
    String template = d.containerEdits().env().stream()
        .filter(e -> e.startsWith("ASCEND_VNPU_TEMPLATE=")).map(e -> e.substring(21))
        .findFirst().orElse(null);
    Integer id = null;
    for (var n : d.containerEdits().deviceNodes()) {
      String host = n.hostPath() == null ? n.path() : n.hostPath();
      java.util.regex.Matcher m = VDAVINCI.matcher(host);
      if (m.find()) {
        id = Integer.valueOf(m.group(1));
      }
    }
    if (template == null || template.isEmpty() || id == null) {
      return device;
    }
    return device.withVnpu(new VnpuRecord(VnpuRecord.UNRESOLVED, template, 0, id));
  }

  /**
   * The soft share a CDI device of ours injects ({@link ClaimSpecBuilder}: the request's region
   * directory mounted at the layout's container region directory), with the registry key the
   * registries hold for that region, so that unprepare removes both and a repeated prepare adopts
   * them; amounts are unknown (0) until the claim is prepared again. {@code device} unchanged when
   * it has no such mount, or the directory is not one of this claim's under the region root.
   */
  private PreparedDevice withCdiSoftShare(String uid, PreparedDevice device, CdiDevice d) {
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
        log.warn("{}: CDI device {} mounts {} at {}, not a region directory of this claim;"
            + " ignored", cdi.specPath(uid), d.name(), dir, m.containerPath());
        return device;
      }
      Long key = null;
      try {
        key = softRegions.registeredKey(dir).orElse(null);
      } catch (IOException | RuntimeException e) {
        log.warn("finding the registry entry of quota region {}: {}", dir, e.getMessage());
      }
      return device.withSoft(new SoftShareRecord(0, 0, 0, 0, null, dir.toString(), 0, key));
    }
    return device;
  }

  private static final java.util.regex.Pattern VDAVINCI =
      java.util.regex.Pattern.compile("/vdavinci([0-9]{1,9})$");

  /**
   * {@code npu-3}, {@code npu-3-<shareID>}, {@code npu-3-soft}, {@code npu-3-soft-<shareID>} →
   * device name and shareID (null when none): the CDI device name after {@code <claim UID>-}.
   */
  static String[] deviceAndShare(String rest) {
    int dash = rest.indexOf('-', "npu-".length());
    String device = dash < 0 ? rest : rest.substring(0, dash);
    String share = dash < 0 ? null : rest.substring(dash + 1);
    String soft = NpuDeviceNames.SOFT_SUFFIX.substring(1);
    if (share != null && (share.equals(soft) || share.startsWith(soft + "-"))) {
      // the soft-share device npu-3-soft: a shareID is a UID (hex digits, dashes), never "soft"
      device += NpuDeviceNames.SOFT_SUFFIX;
      share = share.equals(soft) ? null : share.substring(soft.length() + 1);
    }
    return new String[] {device, share};
  }

  /** {@code <uid>-npu-<phy>[-soft][-<shareID>]} → the device it was written for. */
  private Optional<PreparedDevice> deviceOf(String uid, String cdiName) {
    if (!cdiName.startsWith(uid + "-")) {
      return Optional.empty();
    }
    String[] deviceAndShare = deviceAndShare(cdiName.substring(uid.length() + 1));
    String device = deviceAndShare[0];
    String share = deviceAndShare[1];
    OptionalInt phy = NpuDeviceNames.phyIdOf(device);
    if (phy.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new PreparedDevice(List.of(), poolName, device, share, phy.getAsInt(), false,
        List.of(cdi.kind().qualify(cdiName))));
  }
}
