package io.vnpu.kube.metrics;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.function.BooleanSupplier;

/** Yes/no state as 1/0 gauges read at scrape time. */
public final class StateGauges {
  private StateGauges() {}

  /**
   * {@code vnpu_plugin_registered}: 1 while the plugin is registered with the kubelet.
   */
  public static void registered(PrometheusRegistry registry, String resource, BooleanSupplier registered) {
    GaugeWithCallback.builder().name("vnpu_plugin_registered")
        .help("1 while the plugin is registered with the kubelet, 0 otherwise.").labelNames("resource")
        .callback(cb -> cb.call(registered.getAsBoolean() ? 1 : 0, resource)).register(registry);
  }

  /**
   * {@code vnpu_limiter_ready}: 1 while {@code libvnpu.so} and {@code ld.so.preload} pass the check
   * soft-slice requests run, 0 while soft slices are refused.
   */
  public static void limiterReady(PrometheusRegistry registry, BooleanSupplier usable) {
    GaugeWithCallback.builder().name("vnpu_limiter_ready")
        .help("1 while the limiter files pass verification, 0 while soft-slice requests are refused.")
        .callback(cb -> cb.call(usable.getAsBoolean() ? 1 : 0)).register(registry);
  }
}
