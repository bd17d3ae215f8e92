package io.vnpu.kube.agent;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vnpu.kube.deviceplugin.DevicePluginServer;
import io.vnpu.kube.deviceplugin.PluginState;
import io.vnpu.kube.metrics.MeasuredResourceManager;
import io.vnpu.kube.metrics.NpuCollector;
import io.vnpu.kube.metrics.OpsServer;
import io.vnpu.kube.metrics.RequestMetrics;
import io.vnpu.kube.metrics.StateGauges;
import io.vnpu.kube.observe.HealthCheck;
import io.vnpu.kube.resource.ResourceManager;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agent: one runtime for every device-plugin mode. An {@link AgentSetup} opens what the
 * mode needs (HAMi: configs, driver, health, backend; MindCluster: driver, API client, fault
 * engine, backend); the agent serves each of the backend's resource managers to the kubelet through
 * its own {@link DevicePluginServer}, measures their requests, exports {@code /metrics} with {@code
 * /livez} and {@code /readyz}, and stops everything in order.
 *
 * <p>States: created → {@link #start()} (setup, backend, device plugins; any failure there undoes
 * what was opened and throws {@link AgentStartupException}) → running until {@link #stop()}
 * (SIGTERM through the shutdown hook of {@link #run()}) or until a device plugin gives up ({@link
 * PluginState#FAILED}). Stop order: device plugins (end ListAndWatch, remove the sockets),
 * endpoint, backend, then what the setup opened (health, API client, driver).
 */
public final class NodeAgent implements AutoCloseable {

  /** Stopped on request. */
  public static final int EXIT_OK = 0;

  /** Configuration, driver or backend could not be set up; the message says which file or flag. */
  public static final int EXIT_STARTUP_FAILED = 2;

  /** A device plugin spent its restart budget ({@code RestartPolicy}) and gave up. */
  public static final int EXIT_PLUGIN_GAVE_UP = 3;

  private static final Logger log = LoggerFactory.getLogger(NodeAgent.class);

  private final AgentSetup setup;
  private final String nodeName;
  private final Path kubeletDir;
  private final MetricsOptions metrics;
  private final UnaryOperator<DevicePluginServer.Builder> serverSettings;

  private OpenedNode opened;
  private final List<DevicePluginServer> servers = new ArrayList<>();
  private OpsServer ops;
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private boolean started;
  private boolean stopped;

  /**
   * The agent over HAMi's configuration files ({@code --config_file}, {@code --node_config_file}).
   *
   * @param serverSettings adjusts each device plugin server (restart policy, socket name); identity
   *     for the defaults
   */
  public NodeAgent(
      NodeAgentOptions options,
      DeviceManagerOpener opener,
      ResourceBackendFactory backends,
      UnaryOperator<DevicePluginServer.Builder> serverSettings) {
    this(
        new DeviceConfigSetup(options, opener, backends),
        options.nodeName(),
        options.kubeletDir(),
        options.metrics(),
        serverSettings);
  }

  /**
   * The agent over any mode's setup.
   *
   * @param nodeName the {@code node} label of the chip series
   * @param kubeletDir the kubelet's device-plugin directory (sockets, {@code kubelet.sock})
   * @param metrics the {@code /metrics} endpoint ({@code --metrics-port}), or off
   * @param serverSettings adjusts each device plugin server (socket mode, restart policy)
   */
  public NodeAgent(
      AgentSetup setup,
      String nodeName,
      Path kubeletDir,
      MetricsOptions metrics,
      UnaryOperator<DevicePluginServer.Builder> serverSettings) {
    this.setup = Objects.requireNonNull(setup, "setup");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.kubeletDir = Objects.requireNonNull(kubeletDir, "kubeletDir");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.serverSettings = Objects.requireNonNull(serverSettings, "serverSettings");
  }

  /**
   * Opens and serves; returns once every device plugin made its first registration attempt.
   *
   * @return each device plugin's state after its first attempt, in the backend's manager order
   * @throws AgentStartupException naming the file, flag or device that failed; everything opened so
   *     far is closed again
   */
  public synchronized List<PluginState> startAll() {
    if (stopped || started) {
      throw new IllegalStateException("node agent already started or stopped");
    }
    started = true;
    try {
      opened = setup.open();
      ResourceBackend backend = opened.backend();
      backend.start();
      RequestMetrics requests = new RequestMetrics(registry);
      Map<String, BooleanSupplier> registered = new LinkedHashMap<>();
      for (ResourceManager m : backend.resourceManagers()) {
        DevicePluginServer s =
            serverSettings
                .apply(
                    DevicePluginServer.builder(
                        new MeasuredResourceManager(m, requests, System::nanoTime), kubeletDir))
                .build();
        servers.add(s);
        registered.put(m.resourceName(), () -> s.state() == PluginState.REGISTERED);
      }
      if (servers.isEmpty()) {
        throw new AgentStartupException("the backend offers no resource on node " + nodeName);
      }
      // one gauge, one series per resource (a node may have several device types)
      StateGauges.registered(registry, registered);
      registry.register(
          new NpuCollector(nodeName, opened.chipWord(), opened.telemetry(), metrics.compat()));
      backend.registerMetrics(registry, metrics.compat());
      startEndpoint(backend);
      List<PluginState> states = new ArrayList<>();
      for (DevicePluginServer s : servers) {
        states.add(s.start());
      }
      return states;
    } catch (AgentStartupException e) {
      stop();
      throw e;
    } catch (RuntimeException e) {
      stop();
      throw new AgentStartupException(e.getMessage() != null ? e.getMessage() : e.toString(), e);
    }
  }

  /**
   * {@link #startAll()} for a backend with one resource manager (the HAMi agent).
   *
   * @return the first device plugin's state after its first attempt
   */
  public PluginState start() {
    return startAll().get(0);
  }

  /**
   * Starts {@code /metrics}, {@code /livez}, {@code /readyz} before registering, so probes answer
   * from the start.
   */
  private void startEndpoint(ResourceBackend backend) {
    if (!metrics.enabled()) return;
    List<DevicePluginServer> all = List.copyOf(servers);
    Map<String, HealthCheck> ready = new LinkedHashMap<>();
    ready.put(
        "kubelet",
        () ->
            all.stream()
                .filter(s -> s.state() != PluginState.REGISTERED)
                .findFirst()
                .map(
                    s ->
                        "device plugin "
                            + s.socketPath().getFileName()
                            + " is "
                            + s.state()
                            + ", not REGISTERED"));
    ready.putAll(backend.readinessChecks());
    Map<String, HealthCheck> live =
        Map.of(
            "plugin",
            () ->
                all.stream()
                    .filter(s -> s.state() == PluginState.FAILED)
                    .findFirst()
                    .map(
                        s ->
                            "device plugin "
                                + s.socketPath().getFileName()
                                + " gave up: "
                                + s.failure().map(Throwable::getMessage).orElse("unknown")));
    try {
      ops = OpsServer.start(metrics.host(), metrics.port(), registry, live, ready);
      log.info(
          "metrics on http://{}:{}/metrics, probes /livez and /readyz", metrics.host(), ops.port());
    } catch (IOException e) {
      throw new AgentStartupException(
          "--metrics-port " + metrics.port() + ": " + e.getMessage(), e);
    }
  }

  /**
   * The agent's metrics registry (the endpoint serves it; embedders may add their own collectors).
   */
  public PrometheusRegistry registry() {
    return registry;
  }

  /** The metrics and probe endpoint, when enabled and started. */
  public synchronized Optional<OpsServer> endpoint() {
    return Optional.ofNullable(ops);
  }

  /** The first running device plugin, once started (the only one for a one-manager backend). */
  public synchronized Optional<DevicePluginServer> server() {
    return servers.stream().findFirst();
  }

  /** The running device plugins, one per resource manager, once started. */
  public synchronized List<DevicePluginServer> servers() {
    return List.copyOf(servers);
  }

  /** The backend the setup opened, once started. */
  public synchronized Optional<ResourceBackend> backend() {
    return Optional.ofNullable(opened).map(OpenedNode::backend);
  }

  /**
   * Blocks until a device plugin ends.
   *
   * @return {@link PluginState#STOPPED} after {@link #stop()}, {@link PluginState#FAILED} when one
   *     gave up
   * @throws IllegalStateException when not started
   */
  public PluginState awaitTermination() throws InterruptedException {
    List<DevicePluginServer> all = servers();
    if (all.isEmpty()) {
      throw new IllegalStateException("node agent not started");
    }
    CompletableFuture<?>[] ends =
        all.stream().map(DevicePluginServer::termination).toArray(CompletableFuture[]::new);
    try {
      return (PluginState) CompletableFuture.anyOf(ends).get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("device plugin ended abnormally", e.getCause());
    }
  }

  /**
   * Stops the device plugins (sockets removed), the endpoint, the backend, then the setup's parts;
   * idempotent.
   */
  public synchronized void stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    servers.forEach(DevicePluginServer::stop);
    if (ops != null) {
      ops.close();
    }
    if (opened != null) {
      try {
        opened.backend().close();
      } catch (RuntimeException e) {
        log.warn("stopping the resource backend failed", e);
      }
      try {
        opened.resources().close();
      } catch (Exception e) {
        log.warn("closing the node's resources failed: {}", e.toString());
      }
    }
    log.info("node agent stopped");
  }

  @Override
  public void close() {
    stop();
  }

  /**
   * Runs the agent like a daemon: start, stop on JVM shutdown (SIGTERM, SIGINT) through a shutdown
   * hook, and wait until stopped or a device plugin gave up.
   *
   * @return {@link #EXIT_OK}, {@link #EXIT_STARTUP_FAILED} or {@link #EXIT_PLUGIN_GAVE_UP}
   */
  public int run() {
    try {
      startAll();
    } catch (AgentStartupException e) {
      // one line naming the file, flag or device; the cause's stack only for --debug logging
      log.error("node agent failed to start: {}", e.getMessage());
      if (e.getCause() != null) log.debug("start-up failure", e.getCause());
      return EXIT_STARTUP_FAILED;
    }
    Thread hook = new Thread(this::stop, "vnpu-node-agent-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    PluginState end;
    try {
      end = awaitTermination();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop();
      return EXIT_OK;
    } catch (IllegalStateException e) {
      end = PluginState.FAILED;
    }
    if (end == PluginState.FAILED) {
      log.error(
          "{}",
          servers().stream()
              .map(DevicePluginServer::failure)
              .flatMap(Optional::stream)
              .map(Throwable::getMessage)
              .findFirst()
              .orElse("device plugin failed"));
      stop();
      removeHook(hook);
      return EXIT_PLUGIN_GAVE_UP;
    }
    stop();
    removeHook(hook);
    return EXIT_OK;
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down (the hook is what stopped us): nothing to remove.
      log.debug("shutdown in progress; hook stays");
    }
  }
}
