package io.vnpu.kube.agent;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vnpu.kube.metrics.CompatNames;
import io.vnpu.kube.observe.HealthCheck;
import io.vnpu.kube.resource.ResourceManager;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The resource side a node agent serves to the kubelet, with whatever runs next to it (for HAMi:
 * the node register loop and the idle vNPU cleanup; for MindCluster: hot reset, training recovery,
 * the A3 switch reports).
 */
public interface ResourceBackend extends AutoCloseable {

  /**
   * The managers the agent serves, one device plugin each, in registration order (HAMi: one;
   * MindCluster: one per device type on the node). Called once, after {@link #start()}.
   */
  List<ResourceManager> resourceManagers();

  /** Starts background work; called once, before the device plugin registers. */
  void start();

  /**
   * Registers the backend's own metrics (per-slice series, limiter state) in the agent's registry;
   * called once, before the endpoint starts. Default: none.
   */
  default void registerMetrics(PrometheusRegistry registry, Set<CompatNames> compat) {}

  /**
   * Conditions the agent's {@code /readyz} adds to "registered with the kubelet", by name (for
   * HAMi: the limiter verified). Default: none.
   */
  default Map<String, HealthCheck> readinessChecks() {
    return Map.of();
  }

  /** Stops background work; called once, after the device plugin stopped. */
  @Override
  void close();
}
