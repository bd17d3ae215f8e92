package io.vnpu.api.fault;

import io.vnpu.api.fault.FaultCustomization.DurationRule;
import io.vnpu.api.fault.FaultCustomization.FrequencyRule;
import io.vnpu.api.health.ActiveFault;
import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.ChipReading;
import io.vnpu.api.health.FaultCode;
import io.vnpu.api.health.FaultEvent;
import io.vnpu.api.health.FaultLevel;
import io.vnpu.api.health.FaultOrigin;
import io.vnpu.api.health.FaultUpgrade;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntPredicate;

/**
 * The fault state machine of a node (vnpu DCMI spec sections 3.4, 3.5): folds pushed events and
 * polled readings into per-chip active fault sets, applies the code table, frequency and duration
 * escalation and manual separation, and grades chip and network health. Pure: time comes from the
 * injected clock, no I/O. Thread-safe (every method is synchronized).
 *
 * <p>Per chip and code the states are: absent, active (since a time, from an origin), and for an
 * escalated code additionally upgraded (frequency: until its release window passes without a new
 * occurrence, or for ManuallySeparateNPU without a release window until an operator clears it;
 * duration: until the code has stayed clear for the recover timeout).
 */
public final class FaultTracker {
  private final Clock clock;
  private FaultConfig config;
  private final Map<Integer, Chip> chips = new TreeMap<>();
  private final Set<Integer> manual = new TreeSet<>();
  private Set<Integer> lastPersisted = Set.of();
  private final List<FaultNotice> notices = new ArrayList<>();

  public FaultTracker(FaultConfig config, Clock clock) {
    this.config = Objects.requireNonNull(config, "config");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  private static final class Active {
    final FaultCode code;
    final Instant since;
    final FaultOrigin origin;
    final int severity;

    /** When this tracker learnt of it (event times are the driver's, at second resolution). */
    final Instant arrived;

    Active(FaultCode code, Instant since, FaultOrigin origin, int severity, Instant arrived) {
      this.code = code;
      this.since = since;
      this.origin = origin;
      this.severity = severity;
      this.arrived = arrived;
    }
  }

  private record Raised(
      FaultUpgrade upgrade, Optional<Duration> release, Optional<Instant> clearedAt) {}

  private static final class Chip {
    final Map<FaultCode, Active> active = new TreeMap<>();
    final Map<FaultCode, Deque<Instant>> occurrences = new HashMap<>();
    final Map<FaultCode, Raised> byFrequency = new TreeMap<>();
    final Map<FaultCode, Raised> byDuration = new TreeMap<>();
    Instant lastPoll = Instant.EPOCH;
  }

  /** Replaces the configuration; levels are re-graded on the next {@link #evaluate}. */
  public synchronized void configure(FaultConfig next) {
    this.config = Objects.requireNonNull(next, "next");
  }

  public synchronized FaultConfig config() {
    return config;
  }

  private Chip chip(int logicId) {
    return chips.computeIfAbsent(logicId, k -> new Chip());
  }

  /** Folds one pushed or synthesised event. */
  public synchronized void onEvent(FaultEvent e) {
    Chip c = chip(e.logicId());
    switch (e.assertion()) {
      case OCCURRED -> occur(e.logicId(), c, e.code(), e.time(), e.origin(), e.severity(), false);
      case ONE_SHOT -> occur(e.logicId(), c, e.code(), e.time(), e.origin(), e.severity(), true);
      case RECOVERED -> recover(e.logicId(), c, e.code(), e.time());
    }
  }

  /**
   * Folds one poll of one chip: codes newly listed occur, codes no longer listed recover (an
   * event-sourced code only once a poll started after it arrived has missed it, so a poll racing
   * the event does not clear it), card drop and link status become their synthetic codes. A failed
   * poll changes nothing.
   */
  public synchronized void onReading(int logicId, ChipReading r) {
    Instant now = clock.instant();
    Chip c = chip(logicId);
    Instant previousPoll = c.lastPoll;
    c.lastPoll = now;
    if (r.error().isPresent()) return;
    if (r.cardDropped()) {
      occur(logicId, c, FaultCode.CARD_DROP, now, FaultOrigin.CARD_DROP, -1, false);
      return;
    }
    Active drop = c.active.get(FaultCode.CARD_DROP);
    if (drop != null && drop.origin == FaultOrigin.CARD_DROP)
      recover(logicId, c, FaultCode.CARD_DROP, now);
    for (FaultCode code : new TreeSet<>(r.activeCodes())) {
      occur(logicId, c, code, now, FaultOrigin.POLL, -1, false);
    }
    for (Active a : List.copyOf(c.active.values())) {
      boolean polled =
          a.origin == FaultOrigin.POLL
              || (a.origin == FaultOrigin.EVENT && !a.arrived.isAfter(previousPoll));
      if (polled && !r.activeCodes().contains(a.code)) recover(logicId, c, a.code, now);
    }
    r.linkUp()
        .ifPresent(
            up -> {
              Active link = c.active.get(FaultCode.LINK_DOWN);
              if (!up) {
                occur(logicId, c, FaultCode.LINK_DOWN, now, FaultOrigin.LINK, -1, false);
              } else if (link != null && link.origin == FaultOrigin.LINK) {
                recover(logicId, c, FaultCode.LINK_DOWN, now);
              }
            });
  }

  private void occur(
      int logicId,
      Chip c,
      FaultCode code,
      Instant time,
      FaultOrigin origin,
      int severity,
      boolean oneShot) {
    if (!oneShot && c.active.containsKey(code)) return;
    FaultLevel level = config.table().levelOf(code, severity);
    if (!oneShot) {
      c.active.put(code, new Active(code, time, origin, severity, clock.instant()));
      Raised d = c.byDuration.get(code);
      if (d != null && d.clearedAt().isPresent()) {
        c.byDuration.put(code, new Raised(d.upgrade(), d.release(), Optional.empty()));
      }
    }
    notices.add(
        new FaultNotice(
            logicId,
            code,
            oneShot ? FaultNotice.Kind.Notice : FaultNotice.Kind.Occur,
            level,
            time));
    countOccurrence(logicId, c, code, time);
  }

  private void recover(int logicId, Chip c, FaultCode code, Instant time) {
    Active a = c.active.remove(code);
    if (a == null) return;
    Raised d = c.byDuration.get(code);
    if (d != null) c.byDuration.put(code, new Raised(d.upgrade(), d.release(), Optional.of(time)));
    notices.add(
        new FaultNotice(
            logicId,
            code,
            FaultNotice.Kind.Recovery,
            config.table().levelOf(code, a.severity),
            time));
  }

  private void countOccurrence(int logicId, Chip c, FaultCode code, Instant time) {
    Deque<Instant> seen = c.occurrences.computeIfAbsent(code, k -> new ArrayDeque<>());
    seen.addLast(time);
    Duration longest = Duration.ZERO;
    for (FrequencyRule rule : config.customization().frequency()) {
      if (!rule.codes().contains(code)) continue;
      if (rule.window().compareTo(longest) > 0) longest = rule.window();
      long inWindow = seen.stream().filter(t -> !t.isBefore(time.minus(rule.window()))).count();
      if (inWindow >= rule.times()) {
        Raised before = c.byFrequency.get(code);
        if (before == null || before.upgrade().level().compareTo(rule.level()) < 0) {
          c.byFrequency.put(
              code,
              new Raised(
                  new FaultUpgrade(code, rule.level(), FaultUpgrade.Type.FaultFrequency, time),
                  rule.release(),
                  Optional.empty()));
        }
        if (rule.level() == FaultLevel.MANUALLY_SEPARATE_NPU) manual.add(logicId);
      }
    }
    Instant oldest = time.minus(longest);
    while (!seen.isEmpty() && seen.peekFirst().isBefore(oldest)) seen.removeFirst();
  }

  /**
   * The operator's manual-separation list (the persisted {@code ManuallySeparateNPU} set) as read
   * now: chips that were in the previous persisted version and are missing from this one were
   * removed by an operator and are released, together with the frequency history that separated
   * them; chips separated here and not yet persisted stay.
   */
  public synchronized void syncManualSeparation(Set<Integer> persisted) {
    for (Integer logic : lastPersisted) {
      if (persisted.contains(logic) || !manual.remove(logic)) continue;
      Chip c = chips.get(logic);
      if (c == null) continue;
      c.byFrequency.values().removeIf(r -> r.upgrade().level() == FaultLevel.MANUALLY_SEPARATE_NPU);
      c.occurrences.clear();
    }
    manual.addAll(persisted);
    lastPersisted = Set.copyOf(persisted);
  }

  /** Records that {@code saved} was written to the store. */
  public synchronized void persisted(Set<Integer> saved) {
    lastPersisted = Set.copyOf(saved);
  }

  /**
   * Separates a chip until an operator clears it (ManuallySeparateNPU, persisted with the others):
   * what a failed training-job recovery escalates to.
   */
  public synchronized void separate(int logicId) {
    manual.add(logicId);
  }

  /** Chips separated until an operator clears them (the set to persist). */
  public synchronized Set<Integer> manualSeparation() {
    return Set.copyOf(manual);
  }

  /** Occur / recover / one-shot notices since the last call, oldest first. */
  public synchronized List<FaultNotice> drainNotices() {
    List<FaultNotice> out = List.copyOf(notices);
    notices.clear();
    return out;
  }

  /**
   * Grades every known chip now: applies duration escalation and releases, then computes chip and
   * network health.
   *
   * @param inUse whether a workload holds the chip (PreSeparateNPU and FreeRestartNPU keep a chip
   *     in use healthy so that its workload is not disturbed)
   * @param resetting chips in a hot reset now
   */
  public synchronized Map<Integer, ChipHealth> evaluate(
      Set<Integer> logicIds, IntPredicate inUse, Set<Integer> resetting) {
    Instant now = clock.instant();
    Map<Integer, ChipHealth> out = new TreeMap<>();
    Set<Integer> all = new HashSet<>(logicIds);
    all.addAll(manual);
    for (int logic : all) {
      Chip c = chip(logic);
      applyDuration(c, now);
      releaseFrequency(logic, c, now);
      out.put(logic, grade(logic, c, inUse.test(logic), resetting.contains(logic)));
    }
    return out;
  }

  private void applyDuration(Chip c, Instant now) {
    for (DurationRule rule : config.customization().duration()) {
      for (FaultCode code : rule.codes()) {
        Active a = c.active.get(code);
        if (a != null && !now.isBefore(a.since.plus(rule.faultTimeout()))) {
          Raised before = c.byDuration.get(code);
          if (before == null || before.upgrade().level().compareTo(rule.level()) < 0) {
            c.byDuration.put(
                code,
                new Raised(
                    new FaultUpgrade(
                        code,
                        rule.level(),
                        FaultUpgrade.Type.FaultDuration,
                        a.since.plus(rule.faultTimeout())),
                    Optional.of(rule.recoverTimeout()),
                    Optional.empty()));
          }
        }
      }
    }
    c.byDuration
        .values()
        .removeIf(
            r ->
                r.clearedAt().isPresent()
                    && !now.isBefore(r.clearedAt().get().plus(r.release().orElse(Duration.ZERO))));
  }

  private void releaseFrequency(int logic, Chip c, Instant now) {
    for (Iterator<Raised> it = c.byFrequency.values().iterator(); it.hasNext(); ) {
      Raised r = it.next();
      FaultCode code = r.upgrade().code();
      Deque<Instant> seen = c.occurrences.getOrDefault(code, new ArrayDeque<>());
      Instant last = seen.isEmpty() ? r.upgrade().time() : seen.peekLast();
      boolean release;
      if (r.release().isPresent()) {
        release = !c.active.containsKey(code) && !now.isBefore(last.plus(r.release().get()));
      } else {
        // without a release window only a non-manual raise ends, when the window no longer holds
        // enough
        release =
            r.upgrade().level() != FaultLevel.MANUALLY_SEPARATE_NPU
                && !stillFrequent(code, seen, now);
      }
      if (release) {
        it.remove();
        if (r.upgrade().level() == FaultLevel.MANUALLY_SEPARATE_NPU) manual.remove(logic);
      }
    }
  }

  private boolean stillFrequent(FaultCode code, Deque<Instant> seen, Instant now) {
    for (FrequencyRule rule : config.customization().frequency()) {
      if (!rule.codes().contains(code)) continue;
      long n = seen.stream().filter(t -> !t.isBefore(now.minus(rule.window()))).count();
      if (n >= rule.times()) return true;
    }
    return false;
  }

  private ChipHealth grade(int logic, Chip c, boolean inUse, boolean resetting) {
    FaultCodeTable table = config.table();
    FaultLevel chipLevel = FaultLevel.NORMAL_NPU;
    FaultLevel netLevel = FaultLevel.NORMAL_NPU;
    List<String> chipWhy = new ArrayList<>();
    List<String> netWhy = new ArrayList<>();
    List<ActiveFault> faults = new ArrayList<>();
    for (Active a : c.active.values()) {
      FaultLevel l = table.levelOf(a.code, a.severity);
      faults.add(new ActiveFault(a.code, l, a.since, a.origin));
      String why = a.code.hex() + " " + l.term() + " (" + a.origin.label() + ")";
      if (FaultCodeTable.isNetwork(a.code)) {
        netLevel = netLevel.max(l);
        netWhy.add(why);
      } else {
        chipLevel = chipLevel.max(l);
        chipWhy.add(why);
      }
    }
    List<FaultUpgrade> upgrades = new ArrayList<>();
    for (Raised r : concat(c.byFrequency.values(), c.byDuration.values())) {
      FaultUpgrade u = r.upgrade();
      upgrades.add(u);
      String why = u.code().hex() + " raised to " + u.level().term() + " by " + u.type().name();
      if (u.level() == FaultLevel.MANUALLY_SEPARATE_NPU || !FaultCodeTable.isNetwork(u.code())) {
        chipLevel = chipLevel.max(u.level());
        chipWhy.add(why);
      } else {
        netLevel = netLevel.max(u.level());
        netWhy.add(why);
      }
    }
    if (manual.contains(logic)) {
      chipLevel = FaultLevel.MANUALLY_SEPARATE_NPU;
      chipWhy.add(0, "in ManuallySeparateNPU until an operator removes it");
    }
    boolean healthy =
        chipLevel.allowsScheduling()
            || (inUse
                && (chipLevel == FaultLevel.PRE_SEPARATE_NPU
                    || chipLevel == FaultLevel.FREE_RESTART_NPU));
    boolean netHealthy =
        netLevel == FaultLevel.NORMAL_NPU || netLevel == FaultLevel.NOT_HANDLE_FAULT;
    return new ChipHealth(
        logic,
        healthy && !resetting,
        chipLevel,
        String.join(", ", chipWhy),
        netHealthy,
        netLevel,
        String.join(", ", netWhy),
        faults,
        upgrades,
        resetting);
  }

  private static List<Raised> concat(
      java.util.Collection<Raised> a, java.util.Collection<Raised> b) {
    List<Raised> l = new ArrayList<>(a);
    l.addAll(b);
    return l;
  }

  /**
   * Forgets the faults of a chip after a successful hot reset (the driver cleared them);
   * escalations and manual separation stay.
   */
  public synchronized void resetDone(int logicId) {
    Chip c = chips.get(logicId);
    if (c == null) return;
    Instant now = clock.instant();
    for (FaultCode code : List.copyOf(c.active.keySet())) recover(logicId, c, code, now);
  }
}
