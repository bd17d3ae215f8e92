package io.vnpu.kube.mindcluster.recovery;

import io.vnpu.api.fault.recovery.TrainingRecovery;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link TrainingRecovery#runOnce()} every period on its own daemon thread ({@code -hotReset
 * 2}); a round never sleeps, so a slow API server delays only this thread. Close to stop.
 */
public final class TrainingRecoveryLoop implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TrainingRecoveryLoop.class);

  private final ScheduledExecutorService loop;

  private TrainingRecoveryLoop(ScheduledExecutorService loop) {
    this.loop = loop;
  }

  /** Starts the loop; the first round runs after one period. */
  public static TrainingRecoveryLoop start(TrainingRecovery recovery, Duration period) {
    Objects.requireNonNull(recovery, "recovery");
    ScheduledExecutorService loop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "vnpu-training-recovery");
              t.setDaemon(true);
              return t;
            });
    loop.scheduleWithFixedDelay(
        () -> {
          try {
            recovery.runOnce();
          } catch (RuntimeException e) {
            // a scheduled task that throws is never run again
            LOG.warn("training recovery round failed: {}", e.toString());
          }
        },
        period.toMillis(),
        period.toMillis(),
        TimeUnit.MILLISECONDS);
    return new TrainingRecoveryLoop(loop);
  }

  @Override
  public void close() {
    loop.shutdownNow();
  }
}
