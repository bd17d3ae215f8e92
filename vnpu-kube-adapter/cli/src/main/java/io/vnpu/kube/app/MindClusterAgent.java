package io.vnpu.kube.app;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vnpu.api.fault.FaultConfigs;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.fault.RateLimitedNotifier;
import io.vnpu.api.health.ChipUsage;
import io.vnpu.api.model.Npu;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.fault.DcmiHealth;
import io.vnpu.kube.agent.AgentStartupException;
import io.vnpu.kube.agent.DeviceManagerTelemetry;
import io.vnpu.kube.agent.MetricsOptions;
import io.vnpu.kube.agent.NodeAgent;
import io.vnpu.kube.deviceplugin.DevicePluginServer;
import io.vnpu.kube.deviceplugin.PluginState;
import io.vnpu.kube.faults.HotResetLoop;
import io.vnpu.kube.faults.KubeFaultHandling;
import io.vnpu.kube.observe.HealthCheck;
import io.vnpu.kube.metrics.MeasuredResourceManager;
import io.vnpu.kube.metrics.NpuCollector;
import io.vnpu.kube.metrics.OpsServer;
import io.vnpu.kube.metrics.RequestMetrics;
import io.vnpu.kube.metrics.StateGauges;
import io.vnpu.kube.mindcluster.MindClusterBackend;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import io.vnpu.kube.mindcluster.kube.ConfigMapSeparationStore;
import io.vnpu.kube.mindcluster.kube.DeviceInfoConfigMap;
import io.vnpu.kube.mindcluster.kube.WriteLimiter;
import io.vnpu.kube.podresources.PodResourcesChipUsage;
import io.vnpu.kube.podresources.PodResourcesClient;
import io.vnpu.kube.resource.ResourceManager;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code vnpu plugin --mode mindcluster}: a drop-in for MindCluster's Ascend Device Plugin. Opens
 * the driver, runs the fault engine ({@link HealthMonitor} over DCMI, {@code ManuallySeparateNPU}
 * kept in the device-info ConfigMap, polled every {@code -listWatchPeriod}), the
 * {@link MindClusterBackend}, and one {@link DevicePluginServer} per device type (socket
 * {@code <type>.sock}, mode 0600).
 *
 * <p>States: created → {@link #start()} (any failure undoes what was opened and throws
 * {@link AgentStartupException}) → running until {@link #stop()} or until a device plugin gives up.
 * Stop order: device plugins, backend, health monitor, API client, driver. Exit codes as
 * {@link NodeAgent}.
 */
public final class MindClusterAgent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MindClusterAgent.class);

  private final MindClusterOptions options;
  private final Path kubeletDir;
  private final Supplier<DcmiDeviceManager> driver;
  private final Supplier<KubernetesClient> clients;

  private DcmiDeviceManager deviceManager;
  private KubernetesClient client;
  private HealthMonitor health;
  private KubeFaultHandling faults;
  private HotResetLoop hotReset;
  private io.vnpu.kube.mindcluster.recovery.TrainingRecoveryLoop recovery;
  private java.util.concurrent.ScheduledExecutorService switchLoop;
  private PodResourcesClient podResources;
  private MindClusterBackend backend;
  private final List<DevicePluginServer> servers = new ArrayList<>();
  private final MetricsOptions metrics;
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private OpsServer ops;
  private boolean stopped;
  private Map<String, String> env = System.getenv();

  /**
   * @param driver  opens the driver (real, or the simulator with {@code --simulate})
   * @param clients builds the API client (in-cluster or {@code KUBECONFIG})
   */
  public MindClusterAgent(MindClusterOptions options, Path kubeletDir, Supplier<DcmiDeviceManager> driver,
      Supplier<KubernetesClient> clients) {
    this(options, kubeletDir, driver, clients, MetricsOptions.off());
  }

  /**
   * @param metrics the {@code /metrics}, {@code /livez}, {@code /readyz} endpoint ({@code --metrics-port})
   */
  public MindClusterAgent(MindClusterOptions options, Path kubeletDir, Supplier<DcmiDeviceManager> driver,
      Supplier<KubernetesClient> clients, MetricsOptions metrics) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.options = Objects.requireNonNull(options, "options");
    this.kubeletDir = Objects.requireNonNull(kubeletDir, "kubeletDir");
    this.driver = Objects.requireNonNull(driver, "driver");
    this.clients = Objects.requireNonNull(clients, "clients");
  }

  /**
   * The process environment the agent reads ({@code POD_NAME}, {@code POD_NAMESPACE}: fault Events
   * are bound to the plugin's pod); {@code System.getenv()} unless set before {@link #start()}.
   *
   * @return this agent
   */
  public synchronized MindClusterAgent withEnvironment(Map<String, String> environment) {
    if (backend != null) throw new IllegalStateException("agent already started");
    this.env = Map.copyOf(environment);
    return this;
  }

  /**
   * Opens, starts and registers every device type.
   *
   * @return the state of each device plugin after its first registration attempt
   * @throws AgentStartupException naming the flag, driver or device that failed
   */
  public synchronized List<PluginState> start() {
    if (stopped || backend != null) throw new IllegalStateException("agent already started or stopped");
    try {
      deviceManager = driver.get();
      List<Npu> npus = deviceManager.discover();
      client = clients.get();
      Clock clock = Clock.systemUTC();
      DeviceInfoConfigMap separations = new DeviceInfoConfigMap(client, options.nodeName(), clock,
          new WriteLimiter(clock, WriteLimiter.MIN_GAP, WriteLimiter.REFRESH));
      ConfigMapSeparationStore separated = new ConfigMapSeparationStore(separations, npus);
      DcmiHealth dcmiHealth = DcmiHealth.create(deviceManager.dcmi(), FaultConfigs.shippedDefault(),
          separated, ChipUsage.NONE,
          RateLimitedNotifier.perMinute((logic, reason, message) -> LOG.warn("{}: {}", reason, message), clock),
          options.listWatchPeriod(), clock);
      health = dcmiHealth.monitor();
      // fault Events of the plugin pod, mindx-dl-fault-config reloads
      faults = KubeFaultHandling.start(client, options.nodeName(), health, separated, env, clock);
      health.start();
      backend = MindClusterBackend.create(options, client, deviceManager, health);
      backend.start();
      if (options.hotReset() == 0) {
        podResources = new PodResourcesClient(PodResourcesClient.DEFAULT_SOCKET, Duration.ofSeconds(5));
        hotReset = HotResetLoop.start(dcmiHealth.hotResetter(chipUsage(podResources, backend.components())),
            options.listWatchPeriod());
      }
      startA3Reporting(separations, npus, clock);
      if (options.hotReset() == 2) {
        podResources = new PodResourcesClient(PodResourcesClient.DEFAULT_SOCKET, Duration.ofSeconds(5));
        recovery = io.vnpu.kube.mindcluster.recovery.TrainingRecoveryLoop.start(trainingRecovery(
            dcmiHealth, chipUsage(podResources, backend.components()), backend.components(), clock),
            Duration.ofSeconds(1));
      }
      List<PluginState> states = new ArrayList<>();
      RequestMetrics requests = new RequestMetrics(registry);
      Map<String, java.util.function.BooleanSupplier> registered = new java.util.LinkedHashMap<>();
      for (ResourceManager m : backend.resourceManagers()) {
        DevicePluginServer s = DevicePluginServer.builder(
            new MeasuredResourceManager(m, requests, System::nanoTime), kubeletDir).socketMode("rw-------").build();
        servers.add(s);
        registered.put(m.resourceName(), () -> s.state() == PluginState.REGISTERED);
      }
      // one gauge, one series per device type (a node may have several: static vNPUs, mixed 310P)
      StateGauges.registered(registry, registered);
      registry.register(new NpuCollector(options.nodeName(), npus.isEmpty() ? "" : "Ascend" + npus.get(0).chipName(),
          new DeviceManagerTelemetry(deviceManager, npus, health), metrics.compat()));
      // per-slice series of the soft shares, read by the same collector as HAMi's and DRA's
      registry.register(new io.vnpu.kube.metrics.SliceCollector(options.nodeName(),
          backend.components().sliceSource(), dir -> backend.components().softShare()
              .flatMap(s -> s.registryHostDir(dir)), metrics.compat(), System::nanoTime));
      startEndpoint();
      for (DevicePluginServer s : servers) states.add(s.start());
      return states;
    } catch (AgentStartupException e) {
      stop();
      throw e;
    } catch (RuntimeException e) {
      stop();
      throw new AgentStartupException(e.getMessage() != null ? e.getMessage() : e.toString(), e);
    }
  }

  /** {@code /metrics} and the probes: ready when every device plugin is registered. */
  private void startEndpoint() {
    if (!metrics.enabled()) return;
    List<DevicePluginServer> all = List.copyOf(servers);
    Map<String, HealthCheck> ready = Map.of("kubelet", () -> all.stream()
        .filter(s -> s.state() != PluginState.REGISTERED).findFirst()
        .map(s -> "device plugin " + s.socketPath().getFileName() + " is " + s.state() + ", not REGISTERED"));
    Map<String, HealthCheck> live = Map.of("plugin", () -> all.stream()
        .filter(s -> s.state() == PluginState.FAILED).findFirst()
        .map(s -> "device plugin " + s.socketPath().getFileName() + " gave up"));
    try {
      ops = OpsServer.start(metrics.host(), metrics.port(), registry, live, ready);
      LOG.info("metrics on http://{}:{}/metrics, probes /livez and /readyz", metrics.host(), ops.port());
    } catch (java.io.IOException e) {
      throw new AgentStartupException("--metrics-port " + metrics.port() + ": " + e.getMessage(), e);
    }
  }

  /** The agent's metrics registry. */
  public PrometheusRegistry registry() {
    return registry;
  }

  /** The running device plugins, one per device type. */
  public synchronized List<DevicePluginServer> servers() {
    return List.copyOf(servers);
  }

  /** The backend, once started. */
  public synchronized MindClusterBackend backend() {
    return backend;
  }

  /** Stops everything in reverse order; idempotent. */
  public synchronized void stop() {
    if (stopped) return;
    stopped = true;
    servers.forEach(DevicePluginServer::stop);
    quietly("metrics endpoint", ops);
    quietly("hot reset", hotReset);
    quietly("training recovery", recovery);
    if (switchLoop != null) switchLoop.shutdownNow();
    quietly("PodResources client", podResources);
    quietly("fault configuration reloads", faults);
    quietly("backend", backend);
    quietly("health monitor", health);
    quietly("API client", client);
    quietly("device manager", deviceManager);
    LOG.info("MindCluster agent stopped");
  }

  /**
   * What the {@code -hotReset=0} in-use check asks before a reset: a chip is in use while the
   * kubelet's PodResources lists a container with a device of ours on it, each device ID resolved
   * by the backend ({@link MindClusterComponents#logicOfKubeletDevice}: the kubelet-ID → real-chip
   * map first, then the advertised device, so {@code Ascend310P-1-0} is phy 1 and kubelet
   * {@code Ascend910-2} holding real chip 0 is chip 0), or while a live pod's
   * {@code huawei.com/AscendReal} names it. Anything unreadable counts as in use.
   */
  static ChipUsage chipUsage(PodResourcesClient podResources, io.vnpu.kube.mindcluster.MindClusterComponents backend) {
    PodResourcesChipUsage kubelet = new PodResourcesChipUsage(podResources,
        resource -> resource.startsWith("huawei.com/"), backend::logicOfKubeletDevice);
    return logic -> {
      if (kubelet.inUse(logic)) return true;
      try {
        return backend.logicsNamedByPods().contains(logic);
      } catch (io.vnpu.kube.resource.AllocationException | RuntimeException e) {
        LOG.warn("pods unreadable, NPU logic {} counts as in use: {}", logic, e.getMessage());
        return true;
      }
    };
  }

  /**
   * A3 servers: where the driver ships {@code liblingqu-dcmi.so}, the switch faults into
   * {@code SwitchInfoCfg} every {@code -listWatchPeriod} (the super-pod membership comes with the
   * chips, {@code NodeChips.superPod}).
   */
  private void startA3Reporting(DeviceInfoConfigMap configMap, List<Npu> npus, Clock clock) {
    if (npus.isEmpty() || !npus.get(0).chipName().startsWith("Ascend910")) return;
    java.nio.file.Path lib = deviceManager.dcmi().path();
    io.vnpu.dcmi.LingQuSwitch.open(new io.vnpu.dcmi.DcmiLibrarySource(lib, "loaded", List.of(lib))).ifPresent(sw -> {
      var publisher = new io.vnpu.kube.mindcluster.kube.SwitchInfoPublisher(sw,
          io.vnpu.kube.mindcluster.kube.SwitchFaultLevels.shipped(), configMap, clock);
      switchLoop = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "vnpu-switch-faults");
        t.setDaemon(true);
        return t;
      });
      long period = options.listWatchPeriod().toMillis();
      switchLoop.scheduleWithFixedDelay(publisher::publishOnce, 0, period, java.util.concurrent.TimeUnit.MILLISECONDS);
    });
  }

  /**
   * {@code -hotReset=2}: the jobs from this node's pods (chip names of the inventory), the job
   * ConfigMaps and Events in the job's namespace, bounds from {@code WaitDeviceResetTime} (150 s)
   * and {@code -linkdownTimeout}.
   */
  private io.vnpu.api.fault.recovery.TrainingRecovery trainingRecovery(DcmiHealth dcmiHealth, ChipUsage usage,
      io.vnpu.kube.mindcluster.MindClusterComponents components, Clock clock) {
    Map<String, Integer> logicOfChip = new HashMap<>();
    for (io.vnpu.kube.mindcluster.devices.ChipState c : components.inventory().current().chips()) {
      logicOfChip.put(c.name(), c.npu().logicId());
    }
    return io.vnpu.api.fault.recovery.TrainingRecovery.builder()
        .monitor(health)
        .resetter(dcmiHealth.chipResetter())
        .usage(usage)
        .jobs(new io.vnpu.kube.mindcluster.recovery.TrainingPods(() -> client.pods().inAnyNamespace()
            .withField("spec.nodeName", options.nodeName()).list().getItems(), options.nodeName(), logicOfChip))
        .store(new io.vnpu.kube.mindcluster.recovery.ResetConfigMaps(client, options.nodeName()))
        .events(new io.vnpu.kube.mindcluster.recovery.RecoveryEventsToKube(client, options.nodeName(), clock))
        .clock(clock)
        .bounds(new io.vnpu.api.fault.recovery.TrainingRecovery.Bounds(Duration.ofSeconds(60),
            Duration.ofSeconds(150), options.linkdownTimeout(), 3))
        .build();
  }

  private static void quietly(String what, AutoCloseable c) {
    if (c == null) return;
    try {
      c.close();
    } catch (Exception e) {
      LOG.warn("stopping the {} failed: {}", what, e.toString());
    }
  }

  @Override
  public void close() {
    stop();
  }

  /**
   * Runs like a daemon: start, stop on SIGTERM/SIGINT, wait until stopped or a plugin gave up.
   *
   * @return {@link NodeAgent#EXIT_OK}, {@link NodeAgent#EXIT_STARTUP_FAILED} or
   *     {@link NodeAgent#EXIT_PLUGIN_GAVE_UP}
   */
  public int run() {
    try {
      start();
    } catch (AgentStartupException e) {
      LOG.error("MindCluster agent failed to start: {}", e.getMessage());
      return NodeAgent.EXIT_STARTUP_FAILED;
    }
    Thread hook = new Thread(this::stop, "vnpu-mindcluster-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    List<CompletableFuture<PluginState>> ends = servers().stream().map(DevicePluginServer::termination).toList();
    PluginState end;
    try {
      end = (PluginState) CompletableFuture.anyOf(ends.toArray(CompletableFuture[]::new)).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop();
      return NodeAgent.EXIT_OK;
    } catch (java.util.concurrent.ExecutionException e) {
      end = PluginState.FAILED;
    }
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      LOG.debug("shutdown in progress; hook stays");
    }
    return end == PluginState.FAILED ? NodeAgent.EXIT_PLUGIN_GAVE_UP : NodeAgent.EXIT_OK;
  }
}
