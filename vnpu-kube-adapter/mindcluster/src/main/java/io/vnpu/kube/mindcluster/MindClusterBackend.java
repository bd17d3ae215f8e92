package io.vnpu.kube.mindcluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vnpu.api.health.HealthSource;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import io.vnpu.kube.resource.ResourceManager;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The MindCluster backend as a node agent runs it: {@link MindClusterComponents} with one daemon
 * thread for the {@code -listWatchPeriod} refresh. Serve each of {@link #resourceManagers()} with
 * its own {@code DevicePluginServer} (socket {@code <type>.sock}, mode {@code rw-------}).
 *
 * <pre>{@code
 * MindClusterBackend backend = MindClusterBackend.create(options, client, deviceManager, health);
 * backend.start();                                   // reads the chips, fixes the device types
 * for (ResourceManager m : backend.resourceManagers()) {
 *   DevicePluginServer.builder(m, kubeletDir).socketMode("rw-------").build().start();
 * }
 * }</pre>
 */
public final class MindClusterBackend implements AutoCloseable {
  private final MindClusterComponents components;
  private final ScheduledExecutorService executor;

  private MindClusterBackend(MindClusterComponents components, ScheduledExecutorService executor) {
    this.components = components;
    this.executor = executor;
  }

  /**
   * @param client the API server; owned by the caller
   * @param deviceManager the driver; owned by the caller
   * @param health the node's health source; owned by the caller
   */
  public static MindClusterBackend create(
      MindClusterOptions options,
      KubernetesClient client,
      DeviceManager deviceManager,
      HealthSource health) {
    ScheduledExecutorService executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "mindcluster-refresh");
              t.setDaemon(true);
              return t;
            });
    return new MindClusterBackend(
        new MindClusterComponents(
            options,
            Objects.requireNonNull(client, "client"),
            deviceManager,
            health,
            Clock.systemUTC()),
        executor);
  }

  /**
   * Reads the chips, checks the flags against them, writes the node labels and the device-info
   * ConfigMap and starts the periodic refresh.
   *
   * @throws IllegalArgumentException one line naming the flag that does not fit this node
   */
  public void start() {
    components.start(executor);
  }

  /** One resource manager per device type (after {@link #start()}). */
  public List<ResourceManager> resourceManagers() {
    return components.resourceManagers();
  }

  public MindClusterComponents components() {
    return components;
  }

  @Override
  public void close() {
    components.close();
    executor.shutdownNow();
  }
}
