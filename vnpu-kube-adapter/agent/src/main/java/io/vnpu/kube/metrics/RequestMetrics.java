package io.vnpu.kube.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import io.vnpu.kube.observe.RequestObserver;
import java.time.Duration;
import java.util.Objects;

/**
 * Counters and a latency histogram of the requests a plugin serves: Allocate for the device plugin,
 * Prepare and Unprepare for the DRA plugin. The label {@code operation} names the RPC; errors carry
 * a {@code kind} ({@link RequestObserver.ErrorKind}).
 *
 * <ul>
 *   <li>{@code vnpu_plugin_requests_total{operation}}
 *   <li>{@code vnpu_plugin_request_errors_total{operation, kind}}
 *   <li>{@code vnpu_plugin_request_duration_seconds{operation}} (histogram)
 * </ul>
 */
public final class RequestMetrics implements RequestObserver {
  private final Counter requests;
  private final Counter errors;
  private final Histogram duration;

  /** Registers the three families in {@code registry}. */
  public RequestMetrics(PrometheusRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    requests =
        Counter.builder()
            .name("vnpu_plugin_requests")
            .help("Requests served, by RPC.")
            .labelNames("operation")
            .register(registry);
    errors =
        Counter.builder()
            .name("vnpu_plugin_request_errors")
            .help("Requests that failed, by RPC and kind.")
            .labelNames("operation", "kind")
            .register(registry);
    duration =
        Histogram.builder()
            .name("vnpu_plugin_request_duration_seconds")
            .unit(Unit.SECONDS)
            .help("Time to serve a request, by RPC.")
            .labelNames("operation")
            .classicOnly()
            .classicUpperBounds(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
            .register(registry);
  }

  /** Records one request that succeeded. */
  @Override
  public void succeeded(String operation, Duration took) {
    requests.labelValues(operation).inc();
    duration.labelValues(operation).observe(took.toNanos() / 1e9);
  }

  /** Records one request that failed. */
  @Override
  public void failed(String operation, Duration took, ErrorKind kind) {
    succeeded(operation, took);
    errors.labelValues(operation, kind.label()).inc();
  }
}
