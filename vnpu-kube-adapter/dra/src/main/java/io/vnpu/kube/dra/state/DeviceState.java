package io.vnpu.kube.dra.state;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
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
import io.vnpu.kube.dra.vnpu.VnpuDriver;
import io.vnpu.kube.limiter.LimiterUnavailableException;
import io.vnpu.kube.softslice.SoftSlices;
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
 * under a lock: compute the plan once ({@link ClaimPlanner}) → record it as {@code PrepareStarted}
 * in the checkpoint when it creates a hard vNPU ({@link #recordsBeforeCreating}; issue 15, what was
 * created recorded as it is created) → create the soft shares' quota regions → write the claim's
 * CDI spec ({@link ClaimSpecBuilder}) → record {@code PrepareCompleted}. A failure after {@code
 * PrepareStarted} rolls back what the plan recorded and removes the entry, so nothing leaks and the
 * checkpoint never grows.
 *
 * <p>One durable write per prepare of a whole NPU or a soft share ({@code PrepareCompleted}). What
 * a crash before it leaves is found by name, not by a record: the CDI spec and the quota region
 * directories are named after the claim UID ({@code <uid>_<request>}), so start-up removes a spec
 * and a region no entry records (and the registry entries whose region is gone), the kubelet's
 * retry of the prepare replaces them (a region left by the crashed call is unregistered, by the key
 * the registries hold for it, before the new one is made), and an unprepare of a claim this plugin
 * has no entry for removes them too. A hard vNPU has no such name (DCMI numbers it), so it keeps
 * its {@code PrepareStarted} record.
 *
 * <p>Group commit: the last write of a prepare or unprepare is handed to the {@link
 * CheckpointStore} under the lock, the thread lock is handed on ({@link StateLock#handOff}) and the
 * call waits for the write outside it, so that claims prepared at the same time share one fsync. An
 * answer is given only once the checkpoint it rests on is on disk (a repeated prepare that finds an
 * entry still being written waits for it too). A failed write fails every transaction whose
 * checkpoint held it; each releases what it created and the next transaction reads the file again
 * ({@link CheckpointStore#failures}).
 *
 * <p>Idempotent: preparing a completed claim again returns the recorded devices after making sure
 * its CDI spec file still exists (after a reboot a tmpfs CDI directory is empty while the
 * checkpoint survives). Unprepare needs nothing but the checkpoint (the claim may be gone from the
 * API server); an unknown UID is success.
 *
 * <p>Start-up ({@link Builder#open}): a corrupt checkpoint is moved aside with a warning and the
 * state rebuilt from this plugin's CDI spec files, never a crash loop; half-prepared claims are
 * rolled back; completed claims whose CDI file is gone get it written again; a CDI spec of this
 * plugin's kind without a checkpoint entry (a prepare that crashed before recording) is removed.
 */
public final class DeviceState {

  private static final Logger log = LoggerFactory.getLogger(DeviceState.class);

  /** For a plugin that never plans vNPUs: any call is refused. */
  private static final VnpuDriver NO_VNPUS =
      new VnpuDriver() {
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
  private final AdmissionRules admission;
  private final HardVnpus hardVnpus;
  private final SoftShares softShares;

  /** The checkpoint of the transaction under way, for the steps of each sharing mechanism. */
  private final Journal journal =
      new Journal() {
        @Override
        public Checkpoint current() {
          return checkpoint;
        }

        @Override
        public void save(Checkpoint next) throws StateUnavailableException {
          DeviceState.this.save(next);
        }

        @Override
        public void record(Checkpoint next) {
          DeviceState.this.record(next);
        }
      };

  private volatile Checkpoint checkpoint; // changed under lock
  private volatile CheckpointStore.Version seen; // the file version checkpoint was read from
  private CheckpointStore.Commit tail; // under lock: the write of checkpoint, null when on disk
  private long basedOn; // under lock: the store's failures when checkpoint was read
  private String bootId;

  private DeviceState(
      CheckpointStore store,
      CdiSpecWriter cdi,
      ClaimSpecBuilder specs,
      ClaimPlanner planner,
      NpuInventory inventory,
      String poolName,
      Duration lockTimeout,
      VnpuDriver vnpus,
      SoftSlices softRegions) {
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
    this.admission = new AdmissionRules(inventory);
    this.hardVnpus = new HardVnpus(vnpus);
    this.softShares = new SoftShares(softRegions, inventory);
    try {
      this.lock = new StateLock(store.file().getParent(), lockTimeout);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The parts of a {@link DeviceState} to {@link Builder#open}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * What {@link Builder#open} takes: the checkpoint store, the CDI writer, the claim spec builder,
   * the planner, the inventory, the pool name, the boot ID and the lock timeout are required; the
   * vNPU driver (default: none, every call refused) and the soft slices (default: soft shares off)
   * are optional.
   */
  public static final class Builder {
    private CheckpointStore store;
    private CdiSpecWriter cdi;
    private ClaimSpecBuilder specs;
    private ClaimPlanner planner;
    private NpuInventory inventory;
    private String poolName;
    private String bootId;
    private Duration lockTimeout;
    private VnpuDriver vnpus = NO_VNPUS;
    private SoftSlices softRegions;

    private Builder() {}

    public Builder store(CheckpointStore v) {
      store = Objects.requireNonNull(v, "store");
      return this;
    }

    public Builder cdi(CdiSpecWriter v) {
      cdi = Objects.requireNonNull(v, "cdi");
      return this;
    }

    public Builder specs(ClaimSpecBuilder v) {
      specs = Objects.requireNonNull(v, "specs");
      return this;
    }

    public Builder planner(ClaimPlanner v) {
      planner = Objects.requireNonNull(v, "planner");
      return this;
    }

    public Builder inventory(NpuInventory v) {
      inventory = Objects.requireNonNull(v, "inventory");
      return this;
    }

    public Builder poolName(String v) {
      poolName = Objects.requireNonNull(v, "poolName");
      return this;
    }

    /** The node's current boot ID ({@link BootId}). */
    public Builder bootId(String v) {
      bootId = Objects.requireNonNull(v, "bootId");
      return this;
    }

    /** How long a call waits for the state lock another instance holds. */
    public Builder lockTimeout(Duration v) {
      lockTimeout = Objects.requireNonNull(v, "lockTimeout");
      return this;
    }

    /** The DCMI calls that create and destroy the hard vNPUs the planner asks for. */
    public Builder vnpus(VnpuDriver v) {
      vnpus = Objects.requireNonNull(v, "vnpus");
      return this;
    }

    /** The quota regions and compute registry entries of soft shares (soft slicing on). */
    public Builder softRegions(SoftSlices v) {
      softRegions = Objects.requireNonNull(v, "softRegions");
      return this;
    }

    /**
     * Loads (or repairs) the checkpoint and reconciles it with the CDI directory.
     *
     * @throws IllegalStateException naming the first required part not given
     * @throws IOException when the checkpoint cannot be read, moved aside or written
     */
    public DeviceState open() throws IOException {
      required(store, "store");
      required(cdi, "cdi");
      required(specs, "specs");
      required(planner, "planner");
      required(inventory, "inventory");
      required(poolName, "poolName");
      required(bootId, "bootId");
      required(lockTimeout, "lockTimeout");
      return DeviceState.open(this);
    }

    private static void required(Object part, String name) {
      if (part == null)
        throw new IllegalStateException("DeviceState.builder(): " + name + " not given");
    }
  }

  private static DeviceState open(Builder b) throws IOException {
    DeviceState s;
    try {
      s =
          new DeviceState(
              b.store,
              b.cdi,
              b.specs,
              b.planner,
              b.inventory,
              b.poolName,
              b.lockTimeout,
              b.vnpus,
              b.softRegions);
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
      s.recover(b.bootId);
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
      CheckpointStore.Version now = store.version().orElse(null);
      if (Objects.equals(now, seen) || Objects.equals(now, store.writtenVersion().orElse(null))) {
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
    Step<PrepareOutcome> step;
    try {
      step = prepareLocked(claim);
    } catch (StateUnavailableException | RuntimeException e) {
      lock.release();
      throw e;
    }
    PrepareOutcome outcome = commitAndRelease(step);
    if (step.created() != null) {
      log.info(
          "prepared ResourceClaim {}/{} (uid {}): {}",
          step.created().namespace(),
          step.created().name(),
          uid,
          step.created().devices().stream().map(PreparedDevice::deviceName).toList());
    }
    return outcome;
  }

  /**
   * What a transaction under the lock answers, and what it created that is released again when the
   * checkpoint recording it cannot be written (null: nothing).
   */
  private record Step<T>(T answer, PreparedClaim created) {
    static <T> Step<T> of(T answer) {
      return new Step<>(answer, null);
    }
  }

  private Step<PrepareOutcome> prepareLocked(ResourceClaim claim) throws StateUnavailableException {
    String uid = claim.getMetadata().getUid();
    boolean vnpusChecked = verifyLocked(); // first: checking may change or drop this entry
    PreparedClaim existing = checkpoint.preparedClaims().get(uid);
    if (existing != null && !vnpusChecked && HardVnpus.holds(existing)) {
      return Step.of(
          PrepareOutcome.failed(
              HardVnpus.unchecked(
                  "ResourceClaim "
                      + claim.getMetadata().getNamespace()
                      + "/"
                      + claim.getMetadata().getName())));
    }
    if (existing != null && existing.replayable()) {
      return Step.of(replay(existing)); // answered once the entry is on disk
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
        plan = hardVnpus.adopt(plan, rebuilt);
        plan = softShares.adopt(plan, rebuilt, adopted);
      }
      admission.check(plan, checkpoint);
    } catch (PlanException e) {
      rollBack(rebuilt);
      return Step.of(PrepareOutcome.failed(e.getMessage()));
    }
    if (!vnpusChecked && HardVnpus.holds(plan)) {
      return Step.of(
          PrepareOutcome.failed(
              HardVnpus.unchecked("ResourceClaim " + plan.namespace() + "/" + plan.name())));
    }
    if (recordsBeforeCreating(plan)) {
      save(checkpoint.with(plan));
      try {
        plan = hardVnpus.create(plan, journal);
      } catch (DeviceException e) {
        rollBack(checkpoint.preparedClaims().get(uid));
        return Step.of(
            PrepareOutcome.failed(
                "ResourceClaim "
                    + plan.namespace()
                    + "/"
                    + plan.name()
                    + ": creating the vNPU failed: "
                    + e.getMessage()));
      } catch (StateUnavailableException e) {
        abandon(checkpoint.preparedClaims().get(uid)); // the unrecorded one is destroyed already
        throw e;
      }
    } else {
      // in memory only, for the roll-backs below: if this process dies before PrepareCompleted,
      // what it made is found by the claim's name (class comment)
      checkpoint = checkpoint.with(plan);
    }
    try {
      plan = softShares.create(plan, adopted);
    } catch (IOException | LimiterUnavailableException | RuntimeException e) {
      // what create made of this plan it removed again; a recorded entry (PrepareStarted of a
      // vNPU plan, or the rebuilt one) is rolled back
      rollBack(checkpoint.preparedClaims().get(uid));
      return Step.of(
          PrepareOutcome.failed(
              "ResourceClaim "
                  + plan.namespace()
                  + "/"
                  + plan.name()
                  + ": preparing the soft share failed: "
                  + e.getMessage()));
    }
    try {
      writeSpec(plan);
    } catch (IOException e) {
      rollBack(plan);
      return Step.of(PrepareOutcome.failed(e.getMessage()));
    }
    // the one write of a prepare without vNPUs; the registry keys are only in this plan until it
    // is on disk: a failed write releases them through the plan (commitAndRelease)
    record(checkpoint.with(plan.withState(ClaimState.PrepareCompleted)));
    return new Step<>(PrepareOutcome.prepared(plan.devices()), plan);
  }

  /**
   * Ends a transaction: hands the thread lock on, waits (outside it) until the checkpoint the
   * answer rests on is on disk, then lets the file lock go. When that write failed, what the
   * transaction created is released under the lock again and the call fails (the kubelet retries).
   */
  private <T> T commitAndRelease(Step<T> step) throws StateUnavailableException {
    CheckpointStore.Commit commit = tail;
    StateLock.Share share = lock.handOff();
    try {
      if (commit != null) {
        store.await(commit);
      }
      return step.answer();
    } catch (IOException e) {
      abandonAfterFailedWrite(step.created());
      throw new StateUnavailableException(e.getMessage(), e);
    } finally {
      share.close();
    }
  }

  private void abandonAfterFailedWrite(PreparedClaim created) {
    if (created == null) {
      return;
    }
    String what = "release ResourceClaim uid " + created.uid() + " after a failed checkpoint write";
    try {
      boolean fresh = lock.acquire(what);
      try {
        refresh(fresh);
      } catch (IOException e) {
        // released all the same; the checkpoint stays marked stale and the next call reads it
        log.debug("{}: {}", what, e.getMessage());
      }
    } catch (StateUnavailableException e) {
      // left for the kubelet's retry of the prepare (it replaces a region of this claim found on
      // the node) or the start-up sweep
      log.warn(
          "ResourceClaim uid {}: not released after the failed checkpoint write: {}",
          created.uid(),
          e.getMessage());
      return;
    }
    try {
      abandon(created);
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
    String answer;
    try {
      answer = unprepareLocked(ref);
    } catch (RuntimeException e) {
      lock.release();
      throw e;
    }
    try {
      answer = commitAndRelease(Step.of(answer));
    } catch (StateUnavailableException e) {
      return "unprepare of ResourceClaim " + ref + " failed: " + e.getMessage();
    }
    if (answer.isEmpty()) {
      log.info("unprepared ResourceClaim {}", ref);
    }
    return answer;
  }

  private String unprepareLocked(ClaimRef ref) {
    try {
      PreparedClaim existing = checkpoint.preparedClaims().get(ref.uid());
      if (existing != null && HardVnpus.holds(existing)) {
        if (!verifyLocked()) {
          return HardVnpus.unchecked("unprepare of ResourceClaim " + ref);
        }
        existing = checkpoint.preparedClaims().get(ref.uid()); // checking may change or drop it
      }
      if (existing == null) {
        // never prepared here, unprepared before (the kubelet may ask again), or a prepare that
        // crashed before its record: what it left is named after the claim
        cdi.delete(ref.uid());
        softShares.removeUnrecorded(ref.uid(), checkpoint);
        return "";
      }
      String refused = hardVnpus.destroy(existing, journal);
      if (!refused.isEmpty()) {
        return "unprepare of ResourceClaim " + ref + " failed: " + refused;
      }
      refused = softShares.remove(checkpoint.preparedClaims().get(ref.uid()), journal);
      if (!refused.isEmpty()) {
        return "unprepare of ResourceClaim " + ref + " failed: " + refused;
      }
      rollBack(checkpoint.preparedClaims().get(ref.uid()));
      return "";
    } catch (IOException | StateUnavailableException e) {
      return "unprepare of ResourceClaim " + ref + " failed: " + e.getMessage();
    }
  }

  /**
   * Checks the hard vNPU records against DCMI when the checkpoint asks for it ({@link
   * Checkpoint#vnpuCheckPending}: rebuilt from CDI specs, node rebooted, or a half-prepared vNPU
   * that could not be released at start), with {@link VnpuReconciler}'s rules; a no-op otherwise.
   * Call when DCMI has opened and whenever the NPUs change; prepare and unprepare of claims holding
   * vNPUs also try it and fail (the kubelet retries) while it cannot run.
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
      deleteSpecQuietly(uid);
    }
    for (PreparedClaim c : o.checkpoint().preparedClaims().values()) {
      if (c.state() == ClaimState.PrepareCompleted
          && (o.rewrite().contains(c.uid()) || !cdi.exists(c.uid()))) {
        try {
          writeSpec(c);
          log.info("wrote the CDI spec of ResourceClaim uid {} for its checked vNPUs", c.uid());
        } catch (IOException e) {
          log.warn(
              "writing the CDI spec of ResourceClaim uid {} failed (the kubelet's next"
                  + " prepare retries): {}",
              c.uid(),
              e.getMessage());
        }
      }
    }
    try {
      save(o.checkpoint());
    } catch (StateUnavailableException e) {
      log.warn("vNPU records checked but not saved (checked again): {}", e.getMessage());
      return false;
    }
    log.info(
        "vNPU records checked through DCMI: {} prepared claims, {} CDI specs rewritten, {}"
            + " claims dropped",
        checkpoint.preparedClaims().size(),
        o.rewrite().size(),
        o.dropped().size());
    return true;
  }

  private PrepareOutcome replay(PreparedClaim existing) throws StateUnavailableException {
    if (!cdi.exists(existing.uid())) {
      try {
        writeSpec(existing);
        log.info(
            "re-created the missing CDI spec of ResourceClaim {}/{} (uid {})",
            existing.namespace(),
            existing.name(),
            existing.uid());
      } catch (IOException e) {
        return PrepareOutcome.failed(e.getMessage());
      }
    }
    return PrepareOutcome.prepared(existing.devices());
  }

  /**
   * Whether preparing {@code plan} creates state on the node that must be recorded as {@code
   * PrepareStarted} before it is created, so that a crash leaves a record to roll back: a hard vNPU
   * (DCMI gives it a number, nothing on the node names it after the claim). The CDI spec and a soft
   * share's quota region directory are named after the claim UID, so what a crash leaves of them is
   * found without a record (see the class comment): one checkpoint fsync per prepare.
   */
  private static boolean recordsBeforeCreating(PreparedClaim plan) {
    return HardVnpus.holds(plan);
  }

  /**
   * Removes a claim's CDI spec; a failure is logged (the spec is found again at the next start).
   */
  private void deleteSpecQuietly(String uid) {
    try {
      cdi.delete(uid);
    } catch (IOException e) {
      log.warn("{}", e.getMessage());
    }
  }

  private void writeSpec(PreparedClaim plan) throws IOException {
    Optional<CdiSpec> spec = specs.build(plan);
    if (spec.isPresent()) {
      cdi.write(plan.uid(), spec.get());
    }
  }

  /**
   * A prepare that cannot record its progress (the checkpoint cannot be written): what it created,
   * as {@code created} knows it (vNPU IDs, registry keys), is released now and the claim forgotten
   * in memory, so a retry neither registers the share twice nor leaks the vNPU. The {@code
   * PrepareStarted} entry on disk, if any, is rolled back at the next start (any later successful
   * write replaces it first). Problems are logged.
   */
  private void abandon(PreparedClaim created) {
    if (created == null) {
      return;
    }
    hardVnpus.destroyQuietly(created);
    softShares.releaseQuietly(created);
    deleteSpecQuietly(created.uid());
    checkpoint = checkpoint.without(created.uid());
  }

  /** Undoes what an entry recorded (issue 15: destroy its vNPU) and forgets it. */
  private void rollBack(PreparedClaim entry) throws StateUnavailableException {
    if (entry == null) {
      return;
    }
    String refused = hardVnpus.destroy(entry, journal);
    if (!refused.isEmpty()) {
      log.warn(
          "rolling back ResourceClaim uid {}: {}; the vNPU is left on the chip",
          entry.uid(),
          refused);
    }
    entry = checkpoint.preparedClaims().getOrDefault(entry.uid(), entry);
    refused = softShares.remove(entry, journal);
    if (!refused.isEmpty()) {
      log.warn("rolling back ResourceClaim uid {}: {}", entry.uid(), refused);
    }
    deleteSpecQuietly(entry.uid());
    if (checkpoint.preparedClaims().containsKey(entry.uid())) {
      record(checkpoint.without(entry.uid()));
    }
  }

  /** Writes {@code next} and makes it current once it is on disk. */
  private void save(Checkpoint next) throws StateUnavailableException {
    CheckpointStore.Commit commit = store.submit(next, basedOn);
    try {
      store.await(commit);
    } catch (IOException e) {
      throw new StateUnavailableException(e.getMessage(), e);
    }
    checkpoint = next;
    tail = null; // this write held every checkpoint before it
  }

  /**
   * Makes {@code next} current and hands it to the store without waiting: the transaction waits for
   * it at its end ({@link #commitAndRelease}), and a later {@link #save} waits for it too.
   */
  private void record(Checkpoint next) {
    tail = store.submit(next, basedOn);
    checkpoint = next;
  }

  /**
   * Takes the state lock and reads the checkpoint again when another instance sharing the data
   * directory (a rolling update) has replaced it since this one read or wrote it: every change is a
   * read-modify-write of the newest version under the lock, so neither loses the other's claims.
   */
  private void acquire(String what) throws StateUnavailableException {
    boolean fresh = lock.acquire(what);
    try {
      refresh(fresh);
    } catch (IOException e) {
      lock.release();
      throw new StateUnavailableException(
          what
              + ": reading the checkpoint written by another"
              + " instance failed: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Under the lock just taken ({@code fresh}: the file lock afresh): reads the file again when
   * another instance wrote it, or when a write failed since the checkpoint in memory was read (it
   * may hold what that write lost; no write is under way then).
   */
  private void refresh(boolean fresh) throws IOException {
    long failures = store.failures();
    if (!fresh && failures == basedOn) {
      return; // this process held the file lock throughout: nobody else wrote
    }
    CheckpointStore.Version now = store.version().orElse(null);
    if (failures != basedOn
        || !(Objects.equals(now, seen)
            || Objects.equals(now, store.writtenVersion().orElse(null)))) {
      Checkpoint read = store.load(bootId);
      checkpoint = read;
      seen = now;
      basedOn = failures;
      tail = null;
    }
  }

  // ---- start-up ----

  private void recover(String bootId) throws IOException {
    Checkpoint cp;
    try {
      cp = store.load(bootId);
    } catch (CheckpointCorruptException e) {
      Path aside = store.quarantine();
      log.warn(
          "{}; moved it to {} and rebuilding the prepared claims from the CDI specs in the"
              + " CDI directory",
          e.getMessage(),
          aside);
      // the vNPUs a lost record held are found through DCMI once it is open
      cp = rebuildFromCdi(bootId).withVnpuCheckPending(true);
    }
    if (!cp.nodeBootId().isEmpty() && !cp.nodeBootId().equals(bootId)) {
      log.info(
          "node rebooted since the checkpoint was written (boot ID {} -> {}); re-creating the"
              + " CDI specs of prepared claims, their vNPUs are checked through DCMI once it is open",
          cp.nodeBootId(),
          bootId);
      cp = cp.withVnpuCheckPending(true);
    }
    if (!cp.vnpuCheckPending()
        && cp.preparedClaims().values().stream().anyMatch(HardVnpus::holds)) {
      // a vNPU may have been destroyed outside the plugin while it was down (npu-smi, a driver
      // reload): never report one prepared without DCMI listing it
      log.info("checking the recorded vNPUs through DCMI once it is open");
      cp = cp.withVnpuCheckPending(true);
    }
    this.bootId = bootId;
    checkpoint = cp.withBootId(bootId);
    for (PreparedClaim c : List.copyOf(checkpoint.preparedClaims().values())) {
      if (c.state() == ClaimState.PrepareStarted) {
        log.info(
            "rolling back half-prepared ResourceClaim {}/{} (uid {})",
            c.namespace(),
            c.name(),
            c.uid());
        if (!hardVnpus.releaseHalfPrepared(c, checkpoint)) {
          checkpoint = checkpoint.withVnpuCheckPending(true); // swept once DCMI answers
        }
        softShares.releaseQuietly(c);
        deleteSpecQuietly(c.uid());
        checkpoint = checkpoint.without(c.uid());
      } else if (!cdi.exists(c.uid())
          && !(checkpoint.vnpuCheckPending() && HardVnpus.holds(c))) { // else written once checked
        try {
          writeSpec(c);
          log.info(
              "re-created the missing CDI spec of ResourceClaim {}/{} (uid {})",
              c.namespace(),
              c.name(),
              c.uid());
        } catch (IOException e) {
          // the next NodePrepareResources of the claim tries again and reports the error
          log.warn(
              "re-creating the CDI spec of ResourceClaim {}/{} (uid {}) failed: {}",
              c.namespace(),
              c.name(),
              c.uid(),
              e.getMessage());
        }
      }
    }
    for (String uid : cdi.claimUids()) {
      if (!checkpoint.preparedClaims().containsKey(uid)) {
        // written by a prepare that crashed before recording it: the kubelet retries that
        // prepare (and gets a new file) or the claim is gone
        log.info("removing CDI spec {}: no prepared claim with uid {}", cdi.specPath(uid), uid);
        deleteSpecQuietly(uid);
      }
    }
    softShares.sweep(checkpoint);
    basedOn = store.failures();
    store.save(checkpoint);
    seen = store.version().orElse(null);
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
        Optional<PreparedDevice> pd =
            deviceOf(uid, d.name())
                .map(p -> HardVnpus.fromCdi(p, d))
                .map(p -> softShares.fromCdi(uid, p, d, cdi.specPath(uid)));
        if (pd.isEmpty()) {
          log.warn(
              "{}: CDI device {} is not one this plugin writes; ignored",
              cdi.specPath(uid),
              d.name());
          continue;
        }
        devices.add(pd.get());
      }
      cp = cp.with(new PreparedClaim(uid, "", "", ClaimState.PrepareCompleted, devices, true));
      log.info(
          "rebuilt prepared ResourceClaim uid {} from {}: {}",
          uid,
          cdi.specPath(uid),
          devices.stream().map(PreparedDevice::deviceName).toList());
    }
    return cp;
  }

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
    return Optional.of(
        new PreparedDevice(
            List.of(),
            poolName,
            device,
            share,
            phy.getAsInt(),
            false,
            List.of(cdi.kind().qualify(cdiName))));
  }
}
