package io.vnpu.kube.testing;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.time.Duration;
import java.util.Objects;

/**
 * A latency budget at the share of a core a thread gets on this machine now, for end-to-end tests
 * of a latency promise (a fault is a device taint within a second). On {@code N} cores at load
 * average {@code L > N} every runnable thread gets about {@code N/L} of a core, so a chain of work
 * that keeps the promise on an idle machine takes about {@code L/N} times as long: the budget is
 * {@code promise × max(1, L/N)}, {@code L} the higher of the 1-minute load average when the budget
 * was taken and when it is read. On a quiet machine (CI runs alone) it is the promise itself, so a
 * slow product fails; on two cores at load 20-30, shared by a build or eight, it is 10-15 times the
 * promise, so a starved one is judged on what it did with the CPU it had, not on the load.
 */
public final class LoadScaledBudget {
  private final Duration promise;
  private final double loadAtStart;
  private final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();

  private LoadScaledBudget(Duration promise) {
    this.promise = Objects.requireNonNull(promise, "promise");
    this.loadAtStart = load();
  }

  /** The budget for {@code promise}, with the load average sampled now. */
  public static LoadScaledBudget of(Duration promise) {
    return new LoadScaledBudget(promise);
  }

  /** The promise times {@code max(1, L/N)}, with {@code L} sampled again now. */
  public Duration now() {
    return Duration.ofNanos(Math.round(promise.toNanos() * factor()));
  }

  /** {@code max(1, L/N)}. */
  public double factor() {
    return Math.max(1.0, Math.max(loadAtStart, load()) / os.getAvailableProcessors());
  }

  /** For assertion messages: the promise, the load and the budget. */
  @Override
  public String toString() {
    return String.format(
        "%d ms promised, x%.1f for load %.1f on %d cores: %d ms",
        promise.toMillis(),
        factor(),
        Math.max(loadAtStart, load()),
        os.getAvailableProcessors(),
        now().toMillis());
  }

  /** The 1-minute load average, 0 where the platform has none. */
  private double load() {
    return Math.max(0.0, os.getSystemLoadAverage());
  }
}
