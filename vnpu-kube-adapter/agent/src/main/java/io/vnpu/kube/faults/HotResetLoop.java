package io.vnpu.kube.faults;

import io.vnpu.api.fault.HotResetter;
import io.vnpu.api.fault.HotResetter.Outcome;
import io.vnpu.api.fault.HotResetter.Result;
import io.vnpu.kube.errors.Causes;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link HotResetter} every period on its own daemon thread ({@code -hotReset 0}), so that a
 * reset's bounded boot wait never holds the health poll or the device plugin up. Close to stop.
 */
public final class HotResetLoop implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HotResetLoop.class);

  private final ScheduledExecutorService loop;

  private HotResetLoop(ScheduledExecutorService loop) {
    this.loop = loop;
  }

  /** Starts the loop; the first round runs after one period. */
  public static HotResetLoop start(HotResetter resetter, Duration period) {
    Objects.requireNonNull(resetter, "resetter");
    ScheduledExecutorService loop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "vnpu-hot-reset");
              t.setDaemon(true);
              return t;
            });
    loop.scheduleWithFixedDelay(
        () -> round(resetter), period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    return new HotResetLoop(loop);
  }

  private static void round(HotResetter resetter) {
    try {
      for (Outcome o : resetter.runOnce()) {
        if (o.result() == Result.BUSY) {
          LOG.debug("hot reset of NPU logic {} waits: {}", o.group(), o.detail());
        } else {
          LOG.info("hot reset of NPU logic {}: {} ({})", o.group(), o.result(), o.detail());
        }
      }
    } catch (RuntimeException e) {
      // a failed round must not end the loop (a scheduled task that throws is never run again)
      LOG.warn("hot reset round failed: {}", Causes.describe(e));
    }
  }

  @Override
  public void close() {
    loop.shutdownNow();
  }
}
