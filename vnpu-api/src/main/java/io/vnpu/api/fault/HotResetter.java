package io.vnpu.api.fault;

import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.ChipResetter;
import io.vnpu.api.health.ChipUsage;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hot reset ({@code -hotReset 0}, vnpu DCMI spec section 3.12): a chip whose level needs a reset
 * (RestartNPU, FreeRestartNPU) is reset when no container holds any chip of its reset group
 * (kubelet PodResources, through {@link ChipUsage}) and the driver lists no process on them; its
 * boot status is then polled until {@link ChipResetter#BOOT_FINISHED} within a bound. A group whose
 * reset failed {@code maxFailures} times is left alone until restart. Never resets a chip in use.
 * Run {@link #runOnce()} after each health poll, from one thread.
 */
public final class HotResetter {
  private static final Logger LOG = LoggerFactory.getLogger(HotResetter.class);

  /** What one reset attempt of a group came to. */
  public enum Result {
    /** Reset and booted; its faults are cleared. */
    RESET,
    /** A chip of the group is in use: not touched. */
    BUSY,
    /** The driver refused or the chips did not boot in time. */
    FAILED,
    /** Failed too often before: not tried again until restart. */
    GAVE_UP
  }

  /** The outcome for one reset group. */
  public record Outcome(Set<Integer> group, Result result, String detail) {
    public Outcome {
      group = Collections.unmodifiableSortedSet(new TreeSet<>(group));
    }
  }

  /** How to wait between boot-status polls (tests pass a short real sleep). */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration d) throws InterruptedException;
  }

  private final HealthMonitor monitor;
  private final ChipResetter resetter;
  private final ChipUsage pods;
  private final Clock clock;
  private final Sleeper sleeper;
  private final Duration bootTimeout;
  private final Duration pollInterval;
  private final int maxFailures;
  private final Map<Set<Integer>, Integer> failures = new ConcurrentHashMap<>();

  /** Resets that booted but after which the group needed a reset again at once. */
  private final Map<Set<Integer>, Integer> repeats = new ConcurrentHashMap<>();

  /**
   * @param pods whether a container holds a chip (kubelet PodResources API)
   * @param bootTimeout longest wait for the group to boot (MindCluster: 60 s)
   * @param pollInterval boot-status poll interval (MindCluster: 1 s)
   * @param maxFailures failed resets of one group before giving up (MindCluster: 3)
   */
  public HotResetter(
      HealthMonitor monitor,
      ChipResetter resetter,
      ChipUsage pods,
      Clock clock,
      Sleeper sleeper,
      Duration bootTimeout,
      Duration pollInterval,
      int maxFailures) {
    this.monitor = Objects.requireNonNull(monitor, "monitor");
    this.resetter = Objects.requireNonNull(resetter, "resetter");
    this.pods = Objects.requireNonNull(pods, "pods");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.bootTimeout = Objects.requireNonNull(bootTimeout, "bootTimeout");
    this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
    if (maxFailures < 1)
      throw new IllegalArgumentException("maxFailures must be >= 1: " + maxFailures);
    this.maxFailures = maxFailures;
  }

  /** MindCluster's bounds: 60 s boot wait polled every second, 3 failures. */
  public static HotResetter withDefaults(
      HealthMonitor monitor, ChipResetter resetter, ChipUsage pods) {
    return new HotResetter(
        monitor,
        resetter,
        pods,
        Clock.systemUTC(),
        d -> Thread.sleep(d.toMillis()),
        Duration.ofSeconds(60),
        Duration.ofSeconds(1),
        3);
  }

  /** Resets every group that needs it and may be reset now; returns what happened per group. */
  public List<Outcome> runOnce() {
    Map<Integer, ChipHealth> chips = monitor.chips();
    List<Outcome> out = new ArrayList<>();
    Set<Integer> handled = new HashSet<>();
    List<Set<Integer>> needed = new ArrayList<>();
    for (ChipHealth h : chips.values()) {
      if (!h.level().needsReset() || h.healthy() || handled.contains(h.logicId())) continue;
      Set<Integer> group =
          Collections.unmodifiableSortedSet(new TreeSet<>(resetter.resetGroup(h.logicId())));
      handled.addAll(group);
      needed.add(group);
    }
    // a group that did not need a reset this round is well again: its repeat count starts over
    repeats.keySet().retainAll(needed);
    for (Set<Integer> group : needed) out.add(attempt(group));
    return out;
  }

  private Outcome attempt(Set<Integer> group) {
    int failed = failures.getOrDefault(group, 0);
    if (failed >= maxFailures) {
      return new Outcome(
          group, Result.GAVE_UP, failed + " failed resets: not tried again until restart");
    }
    int repeated = repeats.getOrDefault(group, 0);
    if (repeated >= maxFailures) {
      return new Outcome(
          group,
          Result.GAVE_UP,
          repeated
              + " resets in a row and the fault came back: not tried again until the chip is well");
    }
    for (int logic : group) {
      if (pods.inUse(logic))
        return new Outcome(
            group, Result.BUSY, "NPU logic " + logic + " is allocated to a container");
      int procs = resetter.processCount(logic);
      if (procs != 0) {
        return new Outcome(
            group,
            Result.BUSY,
            procs < 0
                ? "processes on NPU logic " + logic + " unknown (driver cannot list them)"
                : procs + " process(es) on NPU logic " + logic);
      }
    }
    group.forEach(l -> monitor.setResetting(l, true));
    try {
      resetter.reset(group);
      String waited = awaitBoot(group);
      if (!waited.isEmpty()) return fail(group, failed, waited);
      for (int logic : group) monitor.tracker().resetDone(logic);
      failures.remove(group);
      repeats.merge(group, 1, Integer::sum);
      LOG.info("hot reset of NPU logic {} done", group);
      return new Outcome(group, Result.RESET, "booted");
    } catch (RuntimeException e) {
      return fail(group, failed, "reset refused: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fail(group, failed, "interrupted while waiting for the boot");
    } finally {
      group.forEach(l -> monitor.setResetting(l, false));
      monitor.evaluate();
    }
  }

  /** Empty when every chip booted, else why not. */
  private String awaitBoot(Set<Integer> group) throws InterruptedException {
    Instant deadline = clock.instant().plus(bootTimeout);
    Set<Integer> pending = new TreeSet<>(group);
    Map<Integer, Integer> last = new TreeMap<>();
    while (true) {
      for (Integer logic : List.copyOf(pending)) {
        int st = resetter.bootStatus(logic);
        last.put(logic, st);
        if (st == ChipResetter.BOOT_FINISHED) pending.remove(logic);
      }
      if (pending.isEmpty()) return "";
      if (!clock.instant().isBefore(deadline)) {
        return "not booted within " + bootTimeout.toMillis() + " ms: boot status " + last;
      }
      sleeper.sleep(pollInterval);
    }
  }

  private Outcome fail(Set<Integer> group, int failedBefore, String why) {
    int now = failedBefore + 1;
    failures.put(group, now);
    LOG.warn("hot reset of NPU logic {} failed ({}/{}): {}", group, now, maxFailures, why);
    return new Outcome(group, Result.FAILED, why);
  }
}
