package io.vnpu.api.fault.recovery;

import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.health.ActiveFault;
import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.ChipResetter;
import io.vnpu.api.health.ChipUsage;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Training-job fault recovery ({@code -hotReset=2}, vnpu DCMI spec 3.12). For every job holding a
 * chip whose fault needs a reset (RestartNPU, FreeRestartNPU):
 *
 * <ol>
 *   <li><b>STOPPING</b>: the job's ranks on the chip's ring are marked {@code unrecovered} with
 *       policy {@code reset}, {@code GracefulExit=1} and {@code FaultFlushing=true} are written to
 *       {@code reset-config-<job>} and the faulty ranks to {@code fault-config-<job>}; the step
 *       waits until the driver lists no process on any chip of the ring and no container of another
 *       workload holds one, at most {@link Bounds#processExit()};
 *   <li><b>RESETTING</b>: the ring is reset and every chip must boot within {@link
 *       Bounds#deviceReset()} ({@code WaitDeviceResetTime});
 *   <li><b>CHECKING_NETWORK</b>: every chip's parameter-plane network must be healthy within {@link
 *       Bounds#networkCheck()} ({@code -linkdownTimeout});
 *   <li><b>RECOVERED</b>: the ranks are {@code recovered}, {@code GracefulExit=0}, {@code
 *       FaultFlushing=false}: the job's agent restarts training; or <b>ISOLATED</b> when any bound
 *       passes, the driver refuses the reset, or the job needed {@link Bounds#maxAttempts()}
 *       recoveries: the faulty chips are separated (ManuallySeparateNPU), the ranks {@code failed}
 *       with policy {@code isolate}.
 * </ol>
 *
 * A chip that another workload holds is never reset: the ring then waits, and is isolated at the
 * bound instead. Each step is saved (through the {@link RecoveryStore}) before its action, and
 * announced as an Event; {@link #runOnce()} never sleeps, so one slow job never holds another up.
 * After a restart the saved record is resumed: a wait continues to its saved deadline, a reset that
 * was saved but not confirmed issued goes back to the process wait and is then issued again (a
 * second reset of an idle ring harms nobody); a process wait whose chips no longer need a reset is
 * abandoned cleanly ({@link RecoveryStep#ABANDONED}: ranks recovered, graceful exit withdrawn, an
 * Event), so the job's agent is never left waiting on a recovery nobody drives. Call {@link
 * #runOnce()} from one thread, e.g. every second.
 */
public final class TrainingRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(TrainingRecovery.class);

  /**
   * The bounds of each step.
   *
   * @param processExit longest wait for the job's processes to leave the ring (default 60 s)
   * @param deviceReset longest wait for the ring to boot ({@code WaitDeviceResetTime}, default 150
   *     s)
   * @param networkCheck longest wait for the network after the boot ({@code -linkdownTimeout}, 30
   *     s)
   * @param maxAttempts recoveries of one job before its next fault is isolated at once (3)
   */
  public record Bounds(
      Duration processExit, Duration deviceReset, Duration networkCheck, int maxAttempts) {
    public static final Bounds DEFAULT =
        new Bounds(Duration.ofSeconds(60), Duration.ofSeconds(150), Duration.ofSeconds(30), 3);

    public Bounds {
      for (Duration d : List.of(processExit, deviceReset, networkCheck)) {
        if (d.isNegative() || d.isZero())
          throw new IllegalArgumentException("recovery bounds must be > 0: " + d);
      }
      if (maxAttempts < 1)
        throw new IllegalArgumentException("maxAttempts must be >= 1: " + maxAttempts);
    }
  }

  private final HealthMonitor monitor;
  private final ChipResetter resetter;
  private final ChipUsage usage;
  private final TrainingJobs jobs;
  private final RecoveryStore store;
  private final RecoveryEvents events;
  private final Clock clock;
  private final Bounds bounds;

  /** Jobs whose recovery this instance drives (or finished), by {@link TrainingJob#key()}. */
  private final Map<String, Active> active = new HashMap<>();

  /** Jobs whose saved record was looked for since the start. */
  private final Set<String> loaded = new HashSet<>();

  private record Active(TrainingJob job, ResetInfo info, RecoveryRecord record) {}

  private TrainingRecovery(Builder b) {
    this.monitor = Objects.requireNonNull(b.monitor, "monitor");
    this.resetter = Objects.requireNonNull(b.resetter, "resetter");
    this.usage = Objects.requireNonNull(b.usage, "usage");
    this.jobs = Objects.requireNonNull(b.jobs, "jobs");
    this.store = Objects.requireNonNull(b.store, "store");
    this.events = Objects.requireNonNull(b.events, "events");
    this.clock = Objects.requireNonNull(b.clock, "clock");
    this.bounds = Objects.requireNonNull(b.bounds, "bounds");
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builder: every port is required; clock and bounds default to the system clock and {@link
   * Bounds#DEFAULT}.
   */
  public static final class Builder {
    private HealthMonitor monitor;
    private ChipResetter resetter;
    private ChipUsage usage;
    private TrainingJobs jobs;
    private RecoveryStore store;
    private RecoveryEvents events;
    private Clock clock = Clock.systemUTC();
    private Bounds bounds = Bounds.DEFAULT;

    private Builder() {}

    public Builder monitor(HealthMonitor v) {
      this.monitor = v;
      return this;
    }

    public Builder resetter(ChipResetter v) {
      this.resetter = v;
      return this;
    }

    /** Whether any container holds a chip (kubelet PodResources); true when unknown. */
    public Builder usage(ChipUsage v) {
      this.usage = v;
      return this;
    }

    public Builder jobs(TrainingJobs v) {
      this.jobs = v;
      return this;
    }

    public Builder store(RecoveryStore v) {
      this.store = v;
      return this;
    }

    public Builder events(RecoveryEvents v) {
      this.events = v;
      return this;
    }

    public Builder clock(Clock v) {
      this.clock = v;
      return this;
    }

    public Builder bounds(Bounds v) {
      this.bounds = v;
      return this;
    }

    public TrainingRecovery build() {
      return new TrainingRecovery(this);
    }
  }

  /** One job's recovery as it stands after a round. */
  public record Status(TrainingJob job, RecoveryRecord record) {}

  /**
   * Advances every recovery by at most one step and starts the ones a new fault needs; returns the
   * recoveries that are not finished, and those that finished in this round.
   */
  public synchronized List<Status> runOnce() {
    List<TrainingJob> now;
    try {
      now = jobs.onNode();
    } catch (RuntimeException e) {
      LOG.warn(
          "training recovery: cannot list the training jobs of this node ({}); nothing done this round",
          e.getMessage());
      return List.of();
    }
    Map<Integer, ChipHealth> chips = monitor.chips();
    Map<String, TrainingJob> byKey = new TreeMap<>();
    for (TrainingJob j : now) byKey.put(j.key(), j);
    abandonGone(byKey.keySet());
    List<Status> out = new ArrayList<>();
    for (TrainingJob job : byKey.values()) {
      try {
        Active a = active.get(job.key());
        if (a == null && loaded.add(job.key())) a = resume(job, chips);
        if (a == null || a.record().step().terminal()) {
          a = maybeStart(job, chips, a);
          if (a == null) continue;
        } else {
          a = advance(new Active(job, a.info(), a.record()), chips);
        }
        active.put(job.key(), a);
        out.add(new Status(job, a.record()));
      } catch (RuntimeException e) {
        // one job's trouble (its ConfigMap cannot be written) must not stop the others
        LOG.warn("training recovery of job {}: {}", job.key(), e.getMessage());
      }
    }
    return out;
  }

  /**
   * Jobs that left the node: a wait ends; a ring in reset keeps its Recovering mark until it boots.
   */
  private void abandonGone(Set<String> present) {
    for (var it = active.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      if (present.contains(e.getKey())) continue;
      RecoveryRecord r = e.getValue().record();
      if (!r.step().terminal()) {
        LOG.info(
            "training recovery of job {} abandoned in {}: the job left the node",
            e.getKey(),
            r.step());
        if (r.step() != RecoveryStep.RESETTING)
          r.ring().forEach(l -> monitor.setResetting(l, false));
      }
      it.remove();
      loaded.remove(e.getKey());
    }
  }

  /**
   * The saved record, re-checked: it lives in the tenant's namespace, so its owner may have edited
   * it. The ring is recomputed from the faulty chips, which must be the job's own; a wait resumes
   * only while those chips still need a reset; a reset not confirmed issued goes back to the
   * process wait (which checks that nobody else holds a chip of the ring); no deadline lies further
   * out than its bound.
   */
  private Active resume(TrainingJob job, Map<Integer, ChipHealth> chips) {
    Optional<RecoveryStore.Persisted> p = store.load(job);
    if (p.isEmpty()) return null;
    RecoveryRecord saved = p.get().record();
    if (saved.faulty().isEmpty() || !job.ranks().keySet().containsAll(saved.faulty())) {
      LOG.info(
          "training recovery of job {}: the saved record names chips {} the job does not hold here; "
              + "not resumed",
          job.key(),
          saved.faulty());
      return null;
    }
    Set<Integer> ring = new TreeSet<>();
    for (int logic : saved.faulty()) ring.addAll(resetter.trainingRing(logic));
    Instant now = clock.instant();
    RecoveryStep step = saved.step();
    boolean issued = saved.resetIssued();
    if (step == RecoveryStep.RESETTING && !issued) step = RecoveryStep.STOPPING;
    if (step == RecoveryStep.STOPPING
        && !saved.faulty().stream().allMatch(l -> needsReset(chips.get(l)))) {
      RecoveryRecord checked =
          new RecoveryRecord(
              step, ring, saved.faulty(), now, issued, saved.attempt(), saved.detail());
      return abandon(
          new Active(job, p.get().info(), checked),
          "chips "
              + saved.faulty()
              + " no longer need a reset (the fault cleared while no plugin ran); nothing was reset");
    }
    Duration bound =
        switch (step) {
          case STOPPING -> bounds.processExit();
          case RESETTING -> bounds.deviceReset();
          case CHECKING_NETWORK -> bounds.networkCheck();
          default -> Duration.ZERO;
        };
    Instant deadline =
        saved.deadline().isAfter(now.plus(bound)) ? now.plus(bound) : saved.deadline();
    RecoveryRecord r =
        new RecoveryRecord(
            step,
            ring,
            saved.faulty(),
            deadline,
            issued,
            Math.min(Math.max(saved.attempt(), 1), bounds.maxAttempts() + 1),
            saved.detail());
    LOG.info(
        "training recovery of job {} resumed in {} (attempt {})", job.key(), r.step(), r.attempt());
    if (r.step() == RecoveryStep.RESETTING || r.step() == RecoveryStep.CHECKING_NETWORK) {
      r.ring().forEach(l -> monitor.setResetting(l, true));
    }
    return new Active(job, p.get().info(), r);
  }

  private static boolean needsReset(ChipHealth h) {
    return h != null && !h.healthy() && h.level().needsReset() && !h.resetting();
  }

  private Active maybeStart(TrainingJob job, Map<Integer, ChipHealth> chips, Active previous) {
    Set<Integer> faulty = new TreeSet<>();
    for (int logic : job.ranks().keySet()) {
      if (needsReset(chips.get(logic))) faulty.add(logic);
    }
    if (faulty.isEmpty()) return previous;
    if (previous != null
        && previous.record().step() == RecoveryStep.ISOLATED
        && previous.record().faulty().containsAll(faulty)) {
      return previous; // already given up on these chips: separated until an operator clears them
    }
    int attempt = previous == null ? 1 : previous.record().attempt() + 1;
    Set<Integer> ring = new TreeSet<>();
    for (int logic : faulty) ring.addAll(resetter.trainingRing(logic));
    List<RankEntry> ranks = new ArrayList<>();
    for (int logic : ring) {
      Integer rank = job.ranks().get(logic);
      if (rank == null) continue;
      List<Long> codes = faulty.contains(logic) ? codes(chips.get(logic)) : List.of();
      String hex =
          codes.stream().map(c -> String.format("%08X", c)).collect(Collectors.joining(","));
      ranks.add(
          new RankEntry(
              rank,
              logic,
              RankEntry.UNRECOVERED,
              RankEntry.POLICY_RESET,
              RankEntry.POLICY_RESET,
              codes,
              hex));
    }
    Instant now = clock.instant();
    String why = "fault on NPU logic " + faulty + " needs a reset of ring " + ring;
    RecoveryRecord record =
        new RecoveryRecord(
            RecoveryStep.STOPPING,
            ring,
            faulty,
            now.plus(bounds.processExit()),
            false,
            attempt,
            why);
    ResetInfo info = new ResetInfo(ranks, now.getEpochSecond(), attempt, true, 1, false);
    if (attempt > bounds.maxAttempts()) {
      return isolate(
          new Active(job, info, record), attempt - 1 + " recoveries of this job already: " + why);
    }
    List<RankEntry> faultNpus = ranks.stream().filter(r -> faulty.contains(r.logicId())).toList();
    store.save(job, info, record, faultNpus);
    events.record(
        job, "FaultRecoveryStarted", why + "; graceful exit asked (attempt " + attempt + ")", true);
    LOG.warn("training recovery of job {} started: {}", job.key(), why);
    return new Active(job, info, record);
  }

  private static List<Long> codes(ChipHealth h) {
    if (h == null) return List.of();
    return h.faults().stream()
        .filter(f -> f.level().needsReset())
        .map(ActiveFault::code)
        .map(c -> c.value())
        .toList();
  }

  private Active advance(Active a, Map<Integer, ChipHealth> chips) {
    RecoveryRecord r = a.record();
    Instant now = clock.instant();
    switch (r.step()) {
      case STOPPING -> {
        String busy = ringBusy(a.job(), r.ring());
        if (busy.isEmpty()) return startReset(a, now);
        if (!now.isBefore(r.deadline())) {
          return isolate(a, "not stopped within " + ms(bounds.processExit()) + ": " + busy);
        }
        return a;
      }
      case RESETTING -> {
        if (!r.resetIssued()) return issueReset(a);
        Map<Integer, Integer> boot = new TreeMap<>();
        for (int logic : r.ring()) {
          try {
            boot.put(logic, resetter.bootStatus(logic));
          } catch (RuntimeException e) {
            boot.put(logic, -1);
          }
        }
        if (boot.values().stream().allMatch(s -> s == ChipResetter.BOOT_FINISHED)) {
          RecoveryRecord next =
              r.next(
                  RecoveryStep.CHECKING_NETWORK,
                  now.plus(bounds.networkCheck()),
                  "ring " + r.ring() + " booted");
          return save(a, a.info(), next, "RingBooted", next.detail(), false);
        }
        if (!now.isBefore(r.deadline())) {
          return isolate(
              a, "ring not booted within " + ms(bounds.deviceReset()) + ": boot status " + boot);
        }
        return a;
      }
      case CHECKING_NETWORK -> {
        List<Integer> down = new ArrayList<>();
        for (int logic : r.ring()) {
          boolean ok;
          try {
            ok = resetter.networkHealthy(logic);
          } catch (RuntimeException e) {
            ok = false;
          }
          if (!ok) down.add(logic);
        }
        if (down.isEmpty()) return recovered(a, now);
        if (!now.isBefore(r.deadline())) {
          return isolate(
              a,
              "network of NPU logic "
                  + down
                  + " not healthy within "
                  + ms(bounds.networkCheck())
                  + " of the boot");
        }
        return a;
      }
      default -> {
        return a;
      }
    }
  }

  /** Empty when the ring may be reset, else what holds it. */
  private String ringBusy(TrainingJob job, Set<Integer> ring) {
    for (int logic : ring) {
      if (!job.ranks().containsKey(logic) && usage.inUse(logic)) {
        return "NPU logic " + logic + " of the ring is held by another workload";
      }
      int procs = resetter.processCount(logic);
      if (procs != 0) {
        return procs < 0
            ? "processes on NPU logic " + logic + " unknown (the driver cannot list them)"
            : procs + " process(es) still on NPU logic " + logic;
      }
    }
    return "";
  }

  private Active startReset(Active a, Instant now) {
    RecoveryRecord r = a.record();
    RecoveryRecord next =
        r.next(
            RecoveryStep.RESETTING,
            now.plus(bounds.deviceReset()),
            "processes gone; resetting ring " + r.ring());
    // saved before the call: a plugin that dies inside the reset resumes with the boot wait
    Active saved = save(a, a.info(), next, "RingResetStarted", next.detail(), false);
    r.ring().forEach(l -> monitor.setResetting(l, true));
    return issueReset(saved);
  }

  private Active issueReset(Active a) {
    RecoveryRecord r = a.record();
    r.ring().forEach(l -> monitor.setResetting(l, true));
    try {
      resetter.reset(r.ring());
    } catch (RuntimeException e) {
      return isolate(a, "reset of ring " + r.ring() + " refused: " + e.getMessage());
    }
    RecoveryRecord issued = r.issued();
    try {
      store.save(a.job(), a.info(), issued, null);
    } catch (RuntimeException e) {
      // the reset is done; a resumed plugin would only reset the idle ring once more
      LOG.warn(
          "training recovery of job {}: reset issued but not saved: {}",
          a.job().key(),
          e.getMessage());
    }
    return new Active(a.job(), a.info(), issued);
  }

  private Active recovered(Active a, Instant now) {
    RecoveryRecord r = a.record();
    for (int logic : r.ring()) monitor.tracker().resetDone(logic);
    List<RankEntry> ranks =
        a.info().rankList().stream().map(e -> e.with(RankEntry.RECOVERED, "")).toList();
    ResetInfo info =
        new ResetInfo(ranks, now.getEpochSecond(), a.info().retryTime(), false, 0, false);
    RecoveryRecord next =
        r.next(RecoveryStep.RECOVERED, now, "ring " + r.ring() + " reset, booted, network healthy");
    Active done =
        save(a, info, next, "FaultRecovered", next.detail() + "; the job may restart", false);
    r.ring().forEach(l -> monitor.setResetting(l, false));
    monitor.evaluate();
    LOG.info("training recovery of job {}: {}", a.job().key(), next.detail());
    return done;
  }

  /**
   * A resumed wait with nothing left to reset: the ranks recovered, the graceful exit withdrawn.
   */
  private Active abandon(Active a, String why) {
    Instant now = clock.instant();
    RecoveryRecord r = a.record();
    List<RankEntry> ranks =
        a.info().rankList().stream().map(e -> e.with(RankEntry.RECOVERED, "")).toList();
    ResetInfo info =
        new ResetInfo(ranks, now.getEpochSecond(), a.info().retryTime(), false, 0, false);
    RecoveryRecord next =
        new RecoveryRecord(
            RecoveryStep.ABANDONED,
            r.ring(),
            r.faulty(),
            now,
            r.resetIssued(),
            Math.min(Math.max(r.attempt(), 1), bounds.maxAttempts() + 1),
            why);
    LOG.info("training recovery of job {} abandoned: {}", a.job().key(), why);
    return save(a, info, next, "FaultRecoveryAbandoned", why + "; the job may restart", false);
  }

  private Active isolate(Active a, String why) {
    RecoveryRecord r = a.record();
    for (int logic : r.faulty()) monitor.tracker().separate(logic);
    Instant now = clock.instant();
    List<RankEntry> ranks =
        a.info().rankList().stream()
            .map(
                e ->
                    r.faulty().contains(e.logicId())
                        ? e.with(RankEntry.FAILED, RankEntry.POLICY_ISOLATE)
                        : e.with(RankEntry.FAILED, ""))
            .toList();
    ResetInfo info =
        new ResetInfo(ranks, now.getEpochSecond(), a.info().retryTime(), false, 0, false);
    RecoveryRecord next = r.next(RecoveryStep.ISOLATED, now, why);
    LOG.warn(
        "training recovery of job {} failed: {}; NPU logic {} separated",
        a.job().key(),
        why,
        r.faulty());
    Active out;
    try {
      out =
          save(
              a,
              info,
              next,
              "FaultRecoveryFailed",
              why + "; NPU logic " + r.faulty() + " separated",
              true);
    } catch (RuntimeException e) {
      LOG.warn(
          "training recovery of job {}: isolation not saved: {}", a.job().key(), e.getMessage());
      out = new Active(a.job(), info, next);
    }
    if (r.step() != RecoveryStep.RESETTING || r.resetIssued()) {
      r.ring().forEach(l -> monitor.setResetting(l, false));
    }
    monitor.evaluate();
    return out;
  }

  private static String ms(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  private Active save(
      Active a,
      ResetInfo info,
      RecoveryRecord record,
      String reason,
      String message,
      boolean warning) {
    store.save(a.job(), info, record, null);
    events.record(a.job(), reason, message, warning);
    return new Active(a.job(), info, record);
  }
}
