package io.vnpu.kube.metrics;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

/** Yes/no state as 1/0 gauges read at scrape time. */
public final class StateGauges {
  private StateGauges() {}

  /** {@code vnpu_plugin_registered}: 1 while the plugin is registered with the kubelet. */
  public static void registered(
      PrometheusRegistry registry, String resource, BooleanSupplier registered) {
    registered(registry, Map.of(resource, registered));
  }

  /**
   * {@code vnpu_plugin_registered} of every device plugin of one agent, one series per {@code
   * resource} (a node with several device types runs one plugin per type; a metric name can be
   * registered only once, so all of them are one gauge).
   *
   * @param registeredByResource resource name → whether its plugin is registered, in series order
   */
  public static void registered(
      PrometheusRegistry registry, Map<String, BooleanSupplier> registeredByResource) {
    Map<String, BooleanSupplier> plugins = new LinkedHashMap<>(registeredByResource);
    GaugeWithCallback.builder()
        .name("vnpu_plugin_registered")
        .help("1 while the plugin is registered with the kubelet, 0 otherwise.")
        .labelNames("resource")
        .callback(
            cb ->
                plugins.forEach(
                    (resource, registered) -> cb.call(registered.getAsBoolean() ? 1 : 0, resource)))
        .register(registry);
  }

  /**
   * {@code vnpu_limiter_ready}: 1 while {@code libvnpu.so} and {@code ld.so.preload} pass the check
   * soft-slice requests run, 0 while soft slices are refused.
   */
  public static void limiterReady(PrometheusRegistry registry, BooleanSupplier usable) {
    GaugeWithCallback.builder()
        .name("vnpu_limiter_ready")
        .help(
            "1 while the limiter files pass verification, 0 while soft-slice requests are refused.")
        .callback(cb -> cb.call(usable.getAsBoolean() ? 1 : 0))
        .register(registry);
  }
}
