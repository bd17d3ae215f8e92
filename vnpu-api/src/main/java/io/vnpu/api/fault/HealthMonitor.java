package io.vnpu.api.fault;

import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.ChipUsage;
import io.vnpu.api.health.FaultNotifier;
import io.vnpu.api.health.FaultProbe;
import io.vnpu.api.health.HealthSource;
import io.vnpu.api.health.ManualSeparationStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's {@link HealthSource}: every {@code period} it polls each chip through the {@link
 * FaultProbe}, folds pushed events as they arrive, syncs the persisted manual separation, grades
 * health with the {@link FaultTracker} and tells watchers when anything changed. Also publishes
 * fault notices (rate-limit the notifier: see {@link RateLimitedNotifier}).
 *
 * <p>{@link #pollOnce()} runs one cycle synchronously (tests, and callers with their own loop);
 * {@link #start()} runs it on a daemon thread. Thread-safe.
 */
public final class HealthMonitor implements HealthSource, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HealthMonitor.class);

  private final FaultProbe probe;
  private final FaultTracker tracker;
  private volatile ManualSeparationStore store;
  private final ChipUsage usage;
  private volatile FaultNotifier notifier;
  private final Duration period;
  private final List<Consumer<Map<Integer, ChipHealth>>> watchers = new CopyOnWriteArrayList<>();
  private final Set<Integer> resetting = ConcurrentHashMap.newKeySet();
  private final Object cycle = new Object();
  private volatile Map<Integer, ChipHealth> current = Map.of();
  private volatile ScheduledExecutorService loop;
  private volatile boolean subscribed;

  /**
   * @param period poll period ({@code -listWatchPeriod}, 3..1800 s in MindCluster; any positive
   *     here)
   */
  public HealthMonitor(
      FaultProbe probe,
      FaultTracker tracker,
      ManualSeparationStore store,
      ChipUsage usage,
      FaultNotifier notifier,
      Duration period) {
    this.probe = Objects.requireNonNull(probe, "probe");
    this.tracker = Objects.requireNonNull(tracker, "tracker");
    this.store = Objects.requireNonNull(store, "store");
    this.usage = Objects.requireNonNull(usage, "usage");
    this.notifier = Objects.requireNonNull(notifier, "notifier");
    this.period = Objects.requireNonNull(period, "period");
    if (period.isZero() || period.isNegative())
      throw new IllegalArgumentException("period must be > 0: " + period);
  }

  /**
   * Connects the monitor to the cluster once a composition root has it (a node agent opens the
   * driver, and so this monitor, before it builds its Kubernetes client): the persisted
   * manual-separation store and the notice publisher replace the ones given at construction.
   */
  public void attach(ManualSeparationStore clusterStore, FaultNotifier clusterNotifier) {
    synchronized (cycle) {
      this.store = Objects.requireNonNull(clusterStore, "clusterStore");
      this.notifier = Objects.requireNonNull(clusterNotifier, "clusterNotifier");
    }
  }

  /** The tracker, for configuration reloads. */
  public FaultTracker tracker() {
    return tracker;
  }

  /**
   * Subscribes to pushed events (falls back to polling alone when unsupported), polls once and then
   * every period on a daemon thread.
   */
  public synchronized void start() {
    if (loop != null) return;
    ScheduledExecutorService ex =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "vnpu-health");
              t.setDaemon(true);
              return t;
            });
    loop = ex;
    subscribed =
        probe.subscribe(
            e -> {
              tracker.onEvent(e);
              // grade on the monitor thread, never on the driver's callback thread
              ScheduledExecutorService l = loop;
              try {
                if (l != null) l.execute(this::evaluateQuietly);
              } catch (java.util.concurrent.RejectedExecutionException closed) {
                // closed: the event is folded, nobody grades any more
              }
            });
    LOG.info(
        "fault events: {}",
        subscribed ? "subscribed, polling as a safety net" : "not supported, polling only");
    ex.scheduleWithFixedDelay(this::pollQuietly, 0, period.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Whether pushed fault events are delivered (after {@link #start()}). */
  public boolean subscribed() {
    return subscribed;
  }

  private void pollQuietly() {
    try {
      pollOnce();
    } catch (RuntimeException | Error e) {
      // scheduleWithFixedDelay cancels the task for good on anything thrown, an Error included
      LOG.warn("health poll failed, keeping the last state: {}", e.getMessage());
    }
  }

  private void evaluateQuietly() {
    try {
      evaluate();
    } catch (RuntimeException | Error e) {
      LOG.warn("health evaluation failed: {}", e.getMessage());
    }
  }

  /** Polls every chip once and grades; returns the new snapshot. */
  public Map<Integer, ChipHealth> pollOnce() {
    synchronized (cycle) {
      for (int logic : probe.chips()) {
        tracker.onReading(logic, probe.read(logic));
      }
      return evaluate();
    }
  }

  /** Grades without polling (after pushed events) and publishes changes. */
  public Map<Integer, ChipHealth> evaluate() {
    synchronized (cycle) {
      Set<Integer> persisted = null;
      try {
        persisted = Set.copyOf(store.load());
        tracker.syncManualSeparation(persisted);
      } catch (RuntimeException e) {
        LOG.warn("manual separation list unreadable, keeping the last one: {}", e.getMessage());
      }
      Map<Integer, ChipHealth> next =
          tracker.evaluate(
              Set.copyOf(probe.chips()), logic -> usage.inUse(logic), Set.copyOf(resetting));
      Set<Integer> after = tracker.manualSeparation();
      if (!after.equals(persisted)) {
        try {
          store.save(after);
          tracker.persisted(after);
        } catch (RuntimeException e) {
          LOG.warn("manual separation not persisted (retried next poll): {}", e.getMessage());
        }
      }
      for (FaultNotice n : tracker.drainNotices()) {
        try {
          notifier.notify(n.logicId(), n.kind().name(), n.message());
        } catch (RuntimeException e) {
          LOG.warn("fault notice not published: {}", e.getMessage());
        }
      }
      Map<Integer, ChipHealth> previous = current;
      current = Map.copyOf(next);
      if (!next.equals(previous)) {
        Map<Integer, ChipHealth> view = chips();
        for (Consumer<Map<Integer, ChipHealth>> w : watchers) {
          try {
            w.accept(view);
          } catch (RuntimeException e) {
            // one broken watcher must not stop health publication for the others
            LOG.warn("health watcher failed: {}", e.toString());
          }
        }
      }
      return chips();
    }
  }

  /** Marks a chip as being reset (reported unhealthy and Recovering) or done. */
  public void setResetting(int logicId, boolean inReset) {
    if (inReset) {
      resetting.add(logicId);
    } else {
      resetting.remove(logicId);
    }
  }

  @Override
  public Map<Integer, ChipHealth> chips() {
    return java.util.Collections.unmodifiableMap(new TreeMap<>(current));
  }

  @Override
  public AutoCloseable watch(Consumer<Map<Integer, ChipHealth>> onChange) {
    Objects.requireNonNull(onChange, "onChange");
    watchers.add(onChange);
    return () -> watchers.remove(onChange);
  }

  @Override
  public Duration pollPeriod() {
    return period;
  }

  /** Stops the loop (the probe is the caller's to close). */
  @Override
  public void close() {
    ScheduledExecutorService ex;
    synchronized (this) {
      ex = loop;
      loop = null;
    }
    if (ex == null) return;
    ex.shutdownNow();
    try {
      ex.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
