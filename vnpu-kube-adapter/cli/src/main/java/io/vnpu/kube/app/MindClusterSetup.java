package io.vnpu.kube.app;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.health.ChipUsage;
import io.vnpu.api.model.Npu;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.fault.DcmiHealth;
import io.vnpu.kube.agent.AgentSetup;
import io.vnpu.kube.agent.DeviceManagerTelemetry;
import io.vnpu.kube.agent.NodeHealth;
import io.vnpu.kube.agent.OpenedNode;
import io.vnpu.kube.faults.KubeFaultHandling;
import io.vnpu.kube.mindcluster.MindClusterBackend;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import io.vnpu.kube.mindcluster.kube.ConfigMapSeparationStore;
import io.vnpu.kube.mindcluster.kube.DeviceInfoConfigMap;
import io.vnpu.kube.mindcluster.kube.WriteLimiter;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What {@code vnpu plugin --mode mindcluster} opens before the node agent serves: the driver, the
 * API client, the fault engine ({@link NodeHealth} over DCMI, polled every {@code
 * -listWatchPeriod}, {@code ManuallySeparateNPU} kept in the device-info ConfigMap; fault Events of
 * the plugin pod and {@code mindx-dl-fault-config} reloads) and the MindCluster backend. Closing
 * order: fault handling, health monitor, API client, driver.
 */
final class MindClusterSetup implements AgentSetup {
  private final MindClusterOptions options;
  private final Supplier<DcmiDeviceManager> driver;
  private final Supplier<KubernetesClient> clients;
  private volatile Map<String, String> env = System.getenv();
  private volatile MindClusterNodeBackend opened;

  MindClusterSetup(
      MindClusterOptions options,
      Supplier<DcmiDeviceManager> driver,
      Supplier<KubernetesClient> clients) {
    this.options = Objects.requireNonNull(options, "options");
    this.driver = Objects.requireNonNull(driver, "driver");
    this.clients = Objects.requireNonNull(clients, "clients");
  }

  /** {@code POD_NAME}, {@code POD_NAMESPACE}: fault Events are bound to the plugin's pod. */
  void environment(Map<String, String> environment) {
    this.env = Map.copyOf(environment);
  }

  /** The backend, once opened. */
  MindClusterBackend backend() {
    MindClusterNodeBackend b = opened;
    return b == null ? null : b.backend();
  }

  @Override
  public OpenedNode open() {
    DcmiDeviceManager deviceManager = null;
    KubernetesClient client = null;
    HealthMonitor health = null;
    KubeFaultHandling faults = null;
    try {
      deviceManager = driver.get();
      List<Npu> npus = deviceManager.discover();
      client = clients.get();
      Clock clock = Clock.systemUTC();
      DeviceInfoConfigMap deviceInfo =
          new DeviceInfoConfigMap(
              client,
              options.nodeName(),
              clock,
              new WriteLimiter(clock, WriteLimiter.MIN_GAP, WriteLimiter.REFRESH));
      ConfigMapSeparationStore separated = new ConfigMapSeparationStore(deviceInfo, npus);
      DcmiHealth dcmiHealth =
          new NodeHealth(clock)
              .create(deviceManager, separated, ChipUsage.NONE, options.listWatchPeriod());
      health = dcmiHealth.monitor();
      faults = KubeFaultHandling.start(client, options.nodeName(), health, separated, env, clock);
      health.start();
      MindClusterBackend backend =
          MindClusterBackend.create(options, client, deviceManager, health);
      MindClusterNodeBackend node =
          new MindClusterNodeBackend(
              new MindClusterNodeBackend.Parts(
                  options, backend, deviceManager, client, dcmiHealth, deviceInfo, npus, clock));
      opened = node;
      AutoCloseable rest = closing(faults, health, client, deviceManager);
      return new OpenedNode(
          node,
          npus.isEmpty() ? "" : "Ascend" + npus.get(0).chipName(),
          new DeviceManagerTelemetry(deviceManager, npus, health),
          rest);
    } catch (RuntimeException e) {
      try {
        closing(faults, health, client, deviceManager).close();
      } catch (Exception ignored) {
        // each part logs its own failure to close
      }
      throw e;
    }
  }

  private static AutoCloseable closing(
      KubeFaultHandling faults,
      HealthMonitor health,
      KubernetesClient client,
      DcmiDeviceManager deviceManager) {
    return () -> {
      MindClusterNodeBackend.quietly("fault configuration reloads", faults);
      MindClusterNodeBackend.quietly("health monitor", health);
      MindClusterNodeBackend.quietly("API client", client);
      MindClusterNodeBackend.quietly("device manager", deviceManager);
    };
  }
}
