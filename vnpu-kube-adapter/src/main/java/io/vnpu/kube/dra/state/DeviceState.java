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
import io.vnpu.kube.dra.claims.ClaimRef;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
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

  private final CheckpointStore store;
  private final CdiSpecWriter cdi;
  private final ClaimSpecBuilder specs;
  private final ClaimPlanner planner;
  private final NpuInventory inventory;
  private final String poolName;
  private final Duration lockTimeout;
  private final ReentrantLock lock = new ReentrantLock();

  private Checkpoint checkpoint; // guarded by lock

  private DeviceState(CheckpointStore store, CdiSpecWriter cdi, ClaimSpecBuilder specs,
      ClaimPlanner planner, NpuInventory inventory, String poolName, Duration lockTimeout) {
    this.store = store;
    this.cdi = cdi;
    this.specs = specs;
    this.planner = planner;
    this.inventory = inventory;
    this.poolName = poolName;
    this.lockTimeout = lockTimeout;
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
    DeviceState s = new DeviceState(Objects.requireNonNull(store), Objects.requireNonNull(cdi),
        Objects.requireNonNull(specs), Objects.requireNonNull(planner),
        Objects.requireNonNull(inventory), Objects.requireNonNull(poolName), lockTimeout);
    s.recover(bootId);
    return s;
  }

  /** A copy of the current checkpoint content. */
  public Checkpoint snapshot() {
    lock.lock();
    try {
      return checkpoint;
    } finally {
      lock.unlock();
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
      PreparedClaim existing = checkpoint.preparedClaims().get(uid);
      if (existing != null && existing.replayable()) {
        return replay(existing);
      }
      if (existing != null) {
        // half-prepared by a call that crashed or timed out, or rebuilt without request names
        rollBack(existing);
      }
      PreparedClaim plan;
      try {
        plan = planner.plan(claim, inventory.devices());
        checkConflicts(plan);
      } catch (PlanException e) {
        return PrepareOutcome.failed(e.getMessage());
      }
      if (createsNodeState(plan)) {
        save(checkpoint.with(plan));
      }
      try {
        writeSpec(plan);
      } catch (IOException e) {
        rollBack(plan);
        return PrepareOutcome.failed(e.getMessage());
      }
      save(checkpoint.with(plan.withState(ClaimState.PrepareCompleted)));
      log.info("prepared ResourceClaim {}/{} (uid {}): {}", plan.namespace(), plan.name(), uid,
          plan.devices().stream().map(PreparedDevice::deviceName).toList());
      return PrepareOutcome.prepared(plan.devices());
    } finally {
      lock.unlock();
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
      if (existing == null) {
        // never prepared here, or unprepared before: the kubelet may ask again
        cdi.delete(ref.uid());
        return "";
      }
      rollBack(existing);
      log.info("unprepared ResourceClaim {}", ref);
      return "";
    } catch (IOException | StateUnavailableException e) {
      return "unprepare of ResourceClaim " + ref + " failed: " + e.getMessage();
    } finally {
      lock.unlock();
    }
  }

  // ---- under lock ----

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
    for (PreparedDevice d : plan.devices()) {
      if (d.adminAccess() || d.shareId() != null) {
        continue;
      }
      for (PreparedClaim other : checkpoint.preparedClaims().values()) {
        if (other.uid().equals(plan.uid())) {
          continue;
        }
        for (PreparedDevice o : other.devices()) {
          if (o.deviceName().equals(d.deviceName()) && !o.adminAccess() && o.shareId() == null) {
            throw new PlanException("device " + d.deviceName() + " is already prepared for"
                + " ResourceClaim " + other.namespace() + "/" + other.name() + " (uid "
                + other.uid() + ")");
          }
        }
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
    return false;
  }

  private void writeSpec(PreparedClaim plan) throws IOException {
    Optional<CdiSpec> spec = specs.build(plan);
    if (spec.isPresent()) {
      cdi.write(plan.uid(), spec.get());
    }
  }

  /** Undoes what an entry recorded (issue 15: destroy its vNPU) and forgets it. */
  private void rollBack(PreparedClaim entry) throws StateUnavailableException {
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
      checkpoint = next;
    } catch (IOException e) {
      throw new StateUnavailableException(e.getMessage(), e);
    }
  }

  private void acquire(String what) throws StateUnavailableException {
    try {
      if (!lock.tryLock(lockTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new StateUnavailableException("claim state busy: " + what + " waited "
            + lockTimeout.toMillis() + " ms for the lock", null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StateUnavailableException("interrupted while waiting to " + what, e);
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
      cp = rebuildFromCdi(bootId);
    }
    if (!cp.nodeBootId().isEmpty() && !cp.nodeBootId().equals(bootId)) {
      log.info("node rebooted since the checkpoint was written (boot ID {} -> {}); re-creating the"
          + " CDI specs of prepared claims", cp.nodeBootId(), bootId);
    }
    checkpoint = cp.withBootId(bootId);
    for (PreparedClaim c : List.copyOf(checkpoint.preparedClaims().values())) {
      if (c.state() == ClaimState.PrepareStarted) {
        log.info("rolling back half-prepared ResourceClaim {}/{} (uid {})", c.namespace(),
            c.name(), c.uid());
        try {
          cdi.delete(c.uid());
        } catch (IOException e) {
          log.warn("{}", e.getMessage());
        }
        checkpoint = checkpoint.without(c.uid());
      } else if (!cdi.exists(c.uid())) {
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
    store.save(checkpoint);
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
        Optional<PreparedDevice> pd = deviceOf(uid, d.name());
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

  /** {@code <uid>-npu-<phy>[-<shareID>]} → the device it was written for. */
  private Optional<PreparedDevice> deviceOf(String uid, String cdiName) {
    if (!cdiName.startsWith(uid + "-")) {
      return Optional.empty();
    }
    String rest = cdiName.substring(uid.length() + 1);
    int dash = rest.indexOf('-', "npu-".length());
    String device = dash < 0 ? rest : rest.substring(0, dash);
    String share = dash < 0 ? null : rest.substring(dash + 1);
    OptionalInt phy = NpuDeviceNames.phyIdOf(device);
    if (phy.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new PreparedDevice(List.of(), poolName, device, share, phy.getAsInt(), false,
        List.of(cdi.kind().qualify(cdiName))));
  }
}
