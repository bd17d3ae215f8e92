package io.vnpu.kube.hami;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** A {@link Scheduler} backed by a {@link ScheduledExecutorService} owned by the caller. */
public final class ExecutorScheduler implements Scheduler {
  private final ScheduledExecutorService executor;

  public ExecutorScheduler(ScheduledExecutorService executor) {
    this.executor = Objects.requireNonNull(executor, "executor");
  }

  @Override
  public void schedule(Runnable task, Duration delay) {
    executor.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
  }
}
