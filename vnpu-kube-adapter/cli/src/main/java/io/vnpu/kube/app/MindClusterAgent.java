package io.vnpu.kube.app;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.kube.agent.AgentStartupException;
import io.vnpu.kube.agent.MetricsOptions;
import io.vnpu.kube.agent.NodeAgent;
import io.vnpu.kube.deviceplugin.DevicePluginServer;
import io.vnpu.kube.deviceplugin.PluginState;
import io.vnpu.kube.mindcluster.MindClusterBackend;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code vnpu plugin --mode mindcluster}: a drop-in for MindCluster's Ascend Device Plugin, as the
 * one {@link NodeAgent} runs it: {@link MindClusterSetup} opens the driver, the API client, the
 * fault engine and the backend, and the agent serves one device plugin per device type (socket
 * {@code <type>.sock}, mode 0600) with the same metrics, probes, run loop and exit codes as every
 * other mode.
 */
public final class MindClusterAgent implements AutoCloseable {
  private final MindClusterSetup setup;
  private final NodeAgent agent;

  /**
   * @param driver opens the driver (real, or the simulator with {@code --simulate})
   * @param clients builds the API client (in-cluster or {@code KUBECONFIG})
   */
  public MindClusterAgent(
      MindClusterOptions options,
      Path kubeletDir,
      Supplier<DcmiDeviceManager> driver,
      Supplier<KubernetesClient> clients) {
    this(options, kubeletDir, driver, clients, MetricsOptions.off());
  }

  /**
   * @param metrics the {@code /metrics}, {@code /livez}, {@code /readyz} endpoint ({@code
   *     --metrics-port})
   */
  public MindClusterAgent(
      MindClusterOptions options,
      Path kubeletDir,
      Supplier<DcmiDeviceManager> driver,
      Supplier<KubernetesClient> clients,
      MetricsOptions metrics) {
    this.setup = new MindClusterSetup(options, driver, clients);
    this.agent =
        new NodeAgent(
            setup, options.nodeName(), kubeletDir, metrics, b -> b.socketMode("rw-------"));
  }

  /**
   * The process environment the agent reads ({@code POD_NAME}, {@code POD_NAMESPACE}: fault Events
   * are bound to the plugin's pod); {@code System.getenv()} unless set before {@link #start()}.
   *
   * @return this agent
   */
  public synchronized MindClusterAgent withEnvironment(Map<String, String> environment) {
    if (setup.backend() != null) throw new IllegalStateException("agent already started");
    setup.environment(environment);
    return this;
  }

  /**
   * Opens, starts and registers every device type.
   *
   * @return the state of each device plugin after its first registration attempt
   * @throws AgentStartupException naming the flag, driver or device that failed
   */
  public List<PluginState> start() {
    return agent.startAll();
  }

  /** The agent's metrics registry. */
  public PrometheusRegistry registry() {
    return agent.registry();
  }

  /** The running device plugins, one per device type. */
  public List<DevicePluginServer> servers() {
    return agent.servers();
  }

  /** The backend, once started. */
  public MindClusterBackend backend() {
    return setup.backend();
  }

  /** Stops everything in reverse order; idempotent. */
  public void stop() {
    agent.stop();
  }

  @Override
  public void close() {
    stop();
  }

  /**
   * Runs like a daemon: start, stop on SIGTERM/SIGINT, wait until stopped or a plugin gave up.
   *
   * @return {@link NodeAgent#EXIT_OK}, {@link NodeAgent#EXIT_STARTUP_FAILED} or {@link
   *     NodeAgent#EXIT_PLUGIN_GAVE_UP}
   */
  public int run() {
    return agent.run();
  }
}
