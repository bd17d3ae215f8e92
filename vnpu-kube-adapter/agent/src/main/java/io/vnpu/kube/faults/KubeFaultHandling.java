package io.vnpu.kube.faults;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vnpu.api.fault.FaultConfigReloader;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.fault.RateLimitedNotifier;
import io.vnpu.api.health.FaultNotifier;
import io.vnpu.api.health.ManualSeparationStore;
import io.vnpu.kube.errors.Causes;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connects a node's {@link HealthMonitor} to the cluster: fault notices become Events (bound to the
 * device plugin pod named by env {@code POD_NAME} / {@code POD_NAMESPACE}, else to the Node; at
 * most 10 a minute), the manual-separation list goes to the given store, and the fault
 * configuration is re-read from ConfigMap {@code kube-system/mindx-dl-fault-config} every {@code
 * PollInterval} s on a daemon thread. Close it to stop the reloads.
 */
public final class KubeFaultHandling implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KubeFaultHandling.class);

  private final ScheduledExecutorService loop;
  private final FaultConfigReloader reloader;

  private KubeFaultHandling(ScheduledExecutorService loop, FaultConfigReloader reloader) {
    this.loop = loop;
    this.reloader = reloader;
  }

  /**
   * Attaches and starts the configuration reloads (first read at once).
   *
   * @param env the process environment ({@code POD_NAME}, {@code POD_NAMESPACE})
   */
  public static KubeFaultHandling start(
      KubernetesClient client,
      String nodeName,
      HealthMonitor monitor,
      ManualSeparationStore store,
      Map<String, String> env,
      Clock clock) {
    Objects.requireNonNull(client, "client");
    FaultNotifier events =
        Optional.ofNullable(env.get("POD_NAME"))
            .filter(n -> !n.isBlank())
            .<FaultNotifier>map(
                pod ->
                    KubeEventNotifier.forPod(
                        client,
                        env.getOrDefault("POD_NAMESPACE", "kube-system"),
                        pod,
                        nodeName,
                        clock))
            .orElseGet(() -> KubeEventNotifier.forNode(client, nodeName, clock));
    monitor.attach(store, RateLimitedNotifier.perMinute(events, clock));
    FaultConfigReloader reloader =
        new FaultConfigReloader(monitor.tracker().config(), monitor.tracker()::configure);
    FaultConfigMapSource source = new FaultConfigMapSource(client);
    ScheduledExecutorService loop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "vnpu-fault-config");
              t.setDaemon(true);
              return t;
            });
    KubeFaultHandling h = new KubeFaultHandling(loop, reloader);
    loop.execute(() -> h.reloadRound(source));
    return h;
  }

  private void reloadRound(FaultConfigMapSource source) {
    Duration next = FaultConfigMapSource.DEFAULT_POLL_INTERVAL;
    try {
      next = source.reloadOnce(reloader);
    } catch (RuntimeException e) {
      LOG.warn(
          "fault configuration reload failed, keeping {}: {}",
          reloader.inForce().origin(),
          Causes.describe(e));
    }
    if (!loop.isShutdown()) {
      try {
        loop.schedule(() -> reloadRound(source), next.toMillis(), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException closed) {
        // closed meanwhile
      }
    }
  }

  /** The reloader (the configuration in force and the last rejection). */
  public FaultConfigReloader reloader() {
    return reloader;
  }

  @Override
  public void close() {
    loop.shutdownNow();
  }
}
