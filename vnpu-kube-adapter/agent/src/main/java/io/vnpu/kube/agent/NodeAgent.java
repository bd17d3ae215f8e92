package io.vnpu.kube.agent;

import io.vnpu.api.config.ChipConfig;
import io.vnpu.api.config.ConfigException;
import io.vnpu.api.config.DeviceConfig;
import io.vnpu.api.config.DeviceConfigLoader;
import io.vnpu.api.config.NodeConfig;
import io.vnpu.api.config.NodeConfigLoader;
import io.vnpu.api.config.NodeSettings;
import io.vnpu.api.model.Npu;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.kube.deviceplugin.DevicePluginServer;
import io.vnpu.kube.deviceplugin.PluginState;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vnpu.kube.observe.HealthCheck;
import io.vnpu.kube.metrics.MeasuredResourceManager;
import io.vnpu.kube.metrics.NpuCollector;
import io.vnpu.kube.metrics.OpsServer;
import io.vnpu.kube.metrics.RequestMetrics;
import io.vnpu.kube.metrics.StateGauges;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The example node agent: loads the HAMi configs, opens the driver, builds the resource backend and
 * serves it to the kubelet through a {@link DevicePluginServer}.
 *
 * <p>States: created → {@link #start()} (config, driver, chip, backend, plugin; any failure there
 * undoes what was opened and throws {@link AgentStartupException}) → running until
 * {@link #stop()} (SIGTERM through the shutdown hook of {@link #run()}) or until the plugin gives
 * up ({@link PluginState#FAILED}). Stop order: device plugin (ends ListAndWatch, removes the
 * socket), backend, driver.
 */
public final class NodeAgent implements AutoCloseable {

  /** Stopped on request. */
  public static final int EXIT_OK = 0;
  /** Configuration, driver or backend could not be set up; the message says which file or flag. */
  public static final int EXIT_STARTUP_FAILED = 2;
  /** The device plugin spent its restart budget ({@code RestartPolicy}) and gave up. */
  public static final int EXIT_PLUGIN_GAVE_UP = 3;

  private static final Logger log = LoggerFactory.getLogger(NodeAgent.class);

  private final NodeAgentOptions options;
  private final DeviceManagerOpener opener;
  private final ResourceBackendFactory backends;
  private final UnaryOperator<DevicePluginServer.Builder> serverSettings;

  private DeviceManager deviceManager;
  private io.vnpu.api.health.HealthSource health;
  private ResourceBackend backend;
  private DevicePluginServer server;
  private OpsServer ops;
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private boolean stopped;

  /**
   * @param serverSettings adjusts the device plugin server (restart policy, socket name); identity
   *                       for the defaults
   */
  public NodeAgent(NodeAgentOptions options, DeviceManagerOpener opener,
      ResourceBackendFactory backends, UnaryOperator<DevicePluginServer.Builder> serverSettings) {
    this.options = Objects.requireNonNull(options, "options");
    this.opener = Objects.requireNonNull(opener, "opener");
    this.backends = Objects.requireNonNull(backends, "backends");
    this.serverSettings = Objects.requireNonNull(serverSettings, "serverSettings");
  }

  /**
   * Loads, opens and serves; returns once the device plugin made its first registration attempt.
   *
   * @return the device plugin's state after its first attempt
   * @throws AgentStartupException naming the file, flag or device that failed; everything opened so
   *     far is closed again
   */
  public synchronized PluginState start() {
    if (stopped || server != null) {
      throw new IllegalStateException("node agent already started or stopped");
    }
    try {
      log.info("node agent for node {} (--hw_loglevel {} accepted, not used)", options.nodeName(),
          options.hwLogLevel());
      DeviceConfig deviceConfig = new DeviceConfigLoader(w -> log.warn("{}", w))
          .load(options.configFile()).value();
      NodeConfig nodeConfig = options.nodeConfigFile()
          .map(f -> new NodeConfigLoader(w -> log.warn("{}", w)).load(f).value())
          .orElse(NodeConfig.EMPTY);
      Optional<NodeSettings> nodeSettings = nodeConfig.forNode(options.nodeName());
      if (options.nodeConfigFile().isPresent() && nodeSettings.isEmpty()) {
        log.info("{} has no entry for node {}; global settings apply",
            options.nodeConfigFile().get(), options.nodeName());
      }
      deviceManager = opener.open(options);
      List<Npu> npus = deviceManager.discover();
      if (npus.isEmpty()) {
        throw new AgentStartupException("the driver reports no NPU on node " + options.nodeName());
      }
      ChipConfig chip = selectChip(deviceConfig, npus.get(0).chipName());
      log.info("{} NPU(s) of chip {} ({}), resource {}", npus.size(), chip.chipName(),
          chip.commonWord(), chip.resourceName());
      health = opener.openHealth(deviceManager, options);
      backend = backends.create(new AgentEnvironment(options, deviceConfig, nodeConfig,
          nodeSettings, chip, npus, deviceManager, health));
      backend.start();
      RequestMetrics requests = new RequestMetrics(registry);
      server = serverSettings.apply(DevicePluginServer.builder(
          new MeasuredResourceManager(backend.resourceManager(), requests, System::nanoTime),
          options.kubeletDir())).build();
      DevicePluginServer s = server;
      registry.register(new NpuCollector(options.nodeName(), chip.commonWord(),
          new DeviceManagerTelemetry(deviceManager, npus, health), options.metrics().compat()));
      StateGauges.registered(registry, chip.resourceName(), () -> s.state() == PluginState.REGISTERED);
      backend.registerMetrics(registry, options.metrics().compat());
      startEndpoint(s);
      return server.start();
    } catch (AgentStartupException e) {
      stop();
      throw e;
    } catch (ConfigException e) {
      // a user's mistake: the file:line: path = value: reason lines say it all, no stack trace
      stop();
      throw new AgentStartupException(e.getMessage());
    } catch (RuntimeException e) {
      stop();
      throw new AgentStartupException(e.getMessage() != null ? e.getMessage() : e.toString(), e);
    }
  }

  /** Starts {@code /metrics}, {@code /livez}, {@code /readyz} before registering, so probes answer from the start. */
  private void startEndpoint(DevicePluginServer s) {
    if (!options.metrics().enabled()) return;
    Map<String, HealthCheck> ready = new LinkedHashMap<>();
    ready.put("kubelet", () -> s.state() == PluginState.REGISTERED ? Optional.empty()
        : Optional.of("device plugin " + s.socketPath().getFileName() + " is " + s.state() + ", not REGISTERED"));
    ready.putAll(backend.readinessChecks());
    Map<String, HealthCheck> live = Map.of("plugin", () -> s.state() == PluginState.FAILED
        ? Optional.of("device plugin gave up: " + s.failure().map(Throwable::getMessage).orElse("unknown"))
        : Optional.empty());
    try {
      ops = OpsServer.start(options.metrics().host(), options.metrics().port(), registry, live, ready);
      log.info("metrics on http://{}:{}/metrics, probes /livez and /readyz", options.metrics().host(), ops.port());
    } catch (IOException e) {
      throw new AgentStartupException("--metrics-port " + options.metrics().port() + ": " + e.getMessage(), e);
    }
  }

  /** The agent's metrics registry (the endpoint serves it; embedders may add their own collectors). */
  public PrometheusRegistry registry() {
    return registry;
  }

  /** The metrics and probe endpoint, when enabled and started. */
  public synchronized Optional<OpsServer> endpoint() {
    return Optional.ofNullable(ops);
  }

  /** The first {@code vnpus.configs[]} entry whose {@code chipName} is the driver's chip name. */
  private ChipConfig selectChip(DeviceConfig config, String chipName) {
    return config.forChipName(chipName).orElseThrow(() -> new AgentStartupException(
        "can not find vnpu config for chip " + chipName + " in " + options.configFile()
            + " (vnpus.configs[].chipName: " + config.chips().stream().map(ChipConfig::chipName)
            .collect(Collectors.joining(", ")) + ")"));
  }

  /** The running device plugin, once started. */
  public synchronized Optional<DevicePluginServer> server() {
    return Optional.ofNullable(server);
  }

  /**
   * Blocks until the device plugin ends.
   *
   * @return {@link PluginState#STOPPED} after {@link #stop()}, {@link PluginState#FAILED} when it
   *     gave up
   * @throws IllegalStateException when not started
   */
  public PluginState awaitTermination() throws InterruptedException {
    DevicePluginServer s;
    synchronized (this) {
      s = server;
    }
    if (s == null) {
      throw new IllegalStateException("node agent not started");
    }
    try {
      return s.termination().get();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("device plugin ended abnormally", e.getCause());
    }
  }

  /** Stops the device plugin (socket removed), then the backend, then the driver; idempotent. */
  public synchronized void stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    if (server != null) {
      server.stop();
    }
    if (ops != null) {
      ops.close();
    }
    if (backend != null) {
      try {
        backend.close();
      } catch (RuntimeException e) {
        log.warn("stopping the resource backend failed", e);
      }
    }
    if (health instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        log.warn("stopping the health monitor failed: {}", e.toString());
      }
    }
    if (deviceManager != null) {
      try {
        deviceManager.close();
      } catch (RuntimeException e) {
        log.warn("closing the device manager failed", e);
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
   * hook, and wait.
   *
   * @return {@link #EXIT_OK}, {@link #EXIT_STARTUP_FAILED} or {@link #EXIT_PLUGIN_GAVE_UP}
   */
  public int run() {
    try {
      start();
    } catch (AgentStartupException e) {
      log.error("node agent failed to start: {}", e.getMessage(), e.getCause());
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
    }
    if (end == PluginState.FAILED) {
      log.error("{}", server.failure().map(Throwable::getMessage).orElse("device plugin failed"));
      stop();
      removeHook(hook);
      return EXIT_PLUGIN_GAVE_UP;
    }
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
