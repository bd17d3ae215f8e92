package io.vnpu.kube.hami;

import io.vnpu.kube.errors.Causes;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task that runs in rounds on a {@link Scheduler} and survives anything one round throws: the
 * next round is scheduled in a {@code finally}, after {@code afterFailure} when the round threw
 * (any exception or error: a driver's absurd value must not take the node out of HAMi for good). A
 * {@code ScheduledExecutorService} periodic task, by contrast, is cancelled silently by its first
 * exception.
 */
public final class PeriodicTask implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PeriodicTask.class);

  /** One round; returns the delay before the next one. */
  @FunctionalInterface
  public interface Round {
    Duration run() throws Exception;
  }

  private final String name;
  private final Scheduler scheduler;
  private final Round round;
  private final Duration afterFailure;
  private volatile boolean closed;

  /**
   * @param name names the task in log lines, e.g. {@code register}
   * @param afterFailure delay before the next round when one threw
   */
  public PeriodicTask(String name, Scheduler scheduler, Round round, Duration afterFailure) {
    this.name = Objects.requireNonNull(name, "name");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.round = Objects.requireNonNull(round, "round");
    this.afterFailure = Objects.requireNonNull(afterFailure, "afterFailure");
  }

  /** Schedules the first round after {@code initialDelay}. */
  public void start(Duration initialDelay) {
    scheduler.schedule(this::tick, initialDelay);
  }

  private void tick() {
    if (closed) return;
    Duration next = afterFailure;
    try {
      next = Objects.requireNonNull(round.run(), "delay");
    } catch (Throwable t) {
      // logged without the trace at WARN (it repeats every round); the trace is at DEBUG
      LOG.warn(
          "{}: round failed ({}); next round in {} ms",
          name,
          Causes.describe(t),
          afterFailure.toMillis());
      LOG.debug("{}: round failure", name, t);
      if (t instanceof InterruptedException) Thread.currentThread().interrupt();
    } finally {
      if (!closed) scheduler.schedule(this::tick, next);
    }
  }

  /** No round starts after this; one already running finishes. */
  @Override
  public void close() {
    closed = true;
  }
}
