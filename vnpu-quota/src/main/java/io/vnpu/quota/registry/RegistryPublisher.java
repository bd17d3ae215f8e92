package io.vnpu.quota.registry;

import io.vnpu.quota.layout.RegistryLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agent's publisher: every period it {@linkplain ComputeRegistry#publish publishes} the
 * usage of every container registered in the registries it is given, so that each limiter learns
 * what its neighbours use from the registry alone ({@code docs/compute-registry.md}). One daemon
 * thread; a registry that fails is logged once (until it works again) and never holds back the
 * others. Every agent or plugin process that registers slices, and {@code vnpu run}, runs one; of
 * several processes on one registry only the holder of its publish lock publishes, the others take
 * over within a period when it goes.
 */
public final class RegistryPublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RegistryPublisher.class);

  private final Supplier<Collection<ComputeRegistry>> registries;
  private final int periodMs;
  private final int windowMs;
  private final ScheduledExecutorService exec;
  private final Set<Path> failing = new HashSet<>();

  /**
   * Starts publishing.
   *
   * @param registries the registries to publish, asked again every period
   * @param periodMs period, 1..1000 ms ({@code RegistryLayout.REG_DEFAULT_PUB_PERIOD_MS} = 10)
   * @param windowMs window usage is measured over, periodMs..10000 ms (default 100)
   */
  public RegistryPublisher(
      Supplier<Collection<ComputeRegistry>> registries, int periodMs, int windowMs) {
    this.registries = Objects.requireNonNull(registries, "registries");
    if (periodMs < 1 || periodMs > 1000)
      throw new IllegalArgumentException("periodMs must be in 1..1000: " + periodMs);
    if (windowMs < periodMs || windowMs > 10_000) {
      throw new IllegalArgumentException(
          "windowMs must be in " + periodMs + "..10000: " + windowMs);
    }
    this.periodMs = periodMs;
    this.windowMs = windowMs;
    this.exec =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "vnpu-registry-publisher");
              t.setDaemon(true);
              return t;
            });
    exec.scheduleWithFixedDelay(this::round, 0, periodMs, TimeUnit.MILLISECONDS);
  }

  /** With the layout's default period (10 ms) and window (100 ms). */
  public RegistryPublisher(Supplier<Collection<ComputeRegistry>> registries) {
    this(
        registries,
        RegistryLayout.REG_DEFAULT_PUB_PERIOD_MS,
        RegistryLayout.REG_DEFAULT_PUB_WINDOW_MS);
  }

  private void round() {
    Collection<ComputeRegistry> all;
    try {
      all = registries.get();
    } catch (RuntimeException e) {
      LOG.warn("compute registry publisher: cannot list the registries: {}", e.toString());
      return;
    }
    for (ComputeRegistry r : all) {
      try {
        r.publish(System.nanoTime(), periodMs, windowMs);
        if (failing.remove(r.file())) LOG.info("compute registry {}: publishing again", r.file());
      } catch (IOException | RuntimeException e) {
        // IllegalStateException: closed between listing and publishing
        if (failing.add(r.file())) {
          LOG.warn(
              "compute registry {}: cannot publish usage ({}); its limiters count every neighbour at its weighted"
                  + " share until it works again",
              r.file(),
              e.toString());
        }
      }
    }
  }

  /**
   * Stops publishing (bounded: waits at most 1 s for a round in progress, then interrupts it). A
   * round in progress is let finish rather than interrupted at once: an interrupt inside a
   * registry's file I/O closes that registry's channel ({@code ClosedByInterruptException}) for
   * every later user of it, and logged a spurious publish failure at every {@code vnpu run} exit.
   */
  @Override
  public void close() {
    exec.shutdown();
    try {
      if (!exec.awaitTermination(1, TimeUnit.SECONDS)) exec.shutdownNow();
    } catch (InterruptedException e) {
      exec.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
