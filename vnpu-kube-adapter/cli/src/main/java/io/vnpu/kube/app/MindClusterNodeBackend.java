package io.vnpu.kube.app;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.fault.recovery.TrainingRecovery;
import io.vnpu.api.health.ChipUsage;
import io.vnpu.api.model.Npu;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.DcmiLibrarySource;
import io.vnpu.dcmi.LingQuSwitch;
import io.vnpu.dcmi.fault.DcmiHealth;
import io.vnpu.kube.agent.ResourceBackend;
import io.vnpu.kube.faults.HotResetLoop;
import io.vnpu.kube.metrics.CompatNames;
import io.vnpu.kube.metrics.SliceCollector;
import io.vnpu.kube.mindcluster.MindClusterBackend;
import io.vnpu.kube.mindcluster.MindClusterComponents;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import io.vnpu.kube.mindcluster.devices.ChipState;
import io.vnpu.kube.mindcluster.kube.DeviceInfoConfigMap;
import io.vnpu.kube.mindcluster.kube.SwitchFaultLevels;
import io.vnpu.kube.mindcluster.kube.SwitchInfoPublisher;
import io.vnpu.kube.mindcluster.recovery.RecoveryEventsToKube;
import io.vnpu.kube.mindcluster.recovery.ResetConfigMaps;
import io.vnpu.kube.mindcluster.recovery.TrainingPods;
import io.vnpu.kube.mindcluster.recovery.TrainingRecoveryLoop;
import io.vnpu.kube.podresources.PodResourcesChipUsage;
import io.vnpu.kube.podresources.PodResourcesClient;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ResourceManager;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MindCluster's resources as the node agent serves them: the {@link MindClusterBackend} (one
 * resource manager per device type) and what runs beside it once it is started: the {@code
 * -hotReset=0} reset loop, {@code -hotReset=2} training recovery and, on A3 servers, the super-pod
 * membership and switch-fault reports. Closed in reverse order of start.
 */
final class MindClusterNodeBackend implements ResourceBackend {
  private static final Logger LOG = LoggerFactory.getLogger(MindClusterNodeBackend.class);

  private final MindClusterOptions options;
  private final MindClusterBackend backend;
  private final DcmiDeviceManager deviceManager;
  private final KubernetesClient client;
  private final HealthMonitor health;
  private final DcmiHealth dcmiHealth;
  private final DeviceInfoConfigMap deviceInfo;
  private final List<Npu> npus;
  private final Clock clock;

  private HotResetLoop hotReset;
  private TrainingRecoveryLoop recovery;
  private ScheduledExecutorService switchLoop;
  private PodResourcesClient podResources;

  /** The parts {@link MindClusterSetup} opened; nothing runs until {@link #start()}. */
  record Parts(
      MindClusterOptions options,
      MindClusterBackend backend,
      DcmiDeviceManager deviceManager,
      KubernetesClient client,
      DcmiHealth dcmiHealth,
      DeviceInfoConfigMap deviceInfo,
      List<Npu> npus,
      Clock clock) {}

  MindClusterNodeBackend(Parts parts) {
    this.options = parts.options();
    this.backend = parts.backend();
    this.deviceManager = parts.deviceManager();
    this.client = parts.client();
    this.dcmiHealth = parts.dcmiHealth();
    this.health = parts.dcmiHealth().monitor();
    this.deviceInfo = parts.deviceInfo();
    this.npus = List.copyOf(parts.npus());
    this.clock = parts.clock();
  }

  MindClusterBackend backend() {
    return backend;
  }

  @Override
  public List<ResourceManager> resourceManagers() {
    return backend.resourceManagers();
  }

  /** The per-slice series of the soft shares, read by the same collector as HAMi's and DRA's. */
  @Override
  public void registerMetrics(PrometheusRegistry registry, Set<CompatNames> compat) {
    registry.register(
        new SliceCollector(
            options.nodeName(),
            backend.components().sliceSource(),
            dir -> backend.components().softShare().flatMap(s -> s.registryHostDir(dir)),
            compat,
            System::nanoTime));
  }

  @Override
  public synchronized void start() {
    backend.start();
    if (options.hotReset() == 0) {
      podResources =
          new PodResourcesClient(PodResourcesClient.DEFAULT_SOCKET, Duration.ofSeconds(5));
      hotReset =
          HotResetLoop.start(
              dcmiHealth.hotResetter(chipUsage(podResources, backend.components())),
              options.listWatchPeriod());
    }
    startA3Reporting();
    if (options.hotReset() == 2) {
      podResources =
          new PodResourcesClient(PodResourcesClient.DEFAULT_SOCKET, Duration.ofSeconds(5));
      recovery =
          TrainingRecoveryLoop.start(
              trainingRecovery(chipUsage(podResources, backend.components()), backend.components()),
              Duration.ofSeconds(1));
    }
  }

  @Override
  public synchronized void close() {
    quietly("hot reset", hotReset);
    quietly("training recovery", recovery);
    if (switchLoop != null) switchLoop.shutdownNow();
    quietly("PodResources client", podResources);
    quietly("backend", backend);
  }

  /**
   * What the {@code -hotReset=0} in-use check asks before a reset: a chip is in use while the
   * kubelet's PodResources lists a container with a device of ours on it, each device ID resolved
   * by the backend ({@link MindClusterComponents#logicOfKubeletDevice}: the kubelet-ID → real-chip
   * map first, then the advertised device, so {@code Ascend310P-1-0} is phy 1 and kubelet {@code
   * Ascend910-2} holding real chip 0 is chip 0), or while a live pod's {@code
   * huawei.com/AscendReal} names it. Anything unreadable counts as in use.
   */
  static ChipUsage chipUsage(PodResourcesClient podResources, MindClusterComponents backend) {
    PodResourcesChipUsage kubelet =
        new PodResourcesChipUsage(
            podResources,
            resource -> resource.startsWith("huawei.com/"),
            backend::logicOfKubeletDevice);
    return logic -> {
      if (kubelet.inUse(logic)) return true;
      try {
        return backend.logicsNamedByPods().contains(logic);
      } catch (AllocationException | RuntimeException e) {
        LOG.warn("pods unreadable, NPU logic {} counts as in use: {}", logic, e.getMessage());
        return true;
      }
    };
  }

  /**
   * A3 servers: where the driver ships {@code liblingqu-dcmi.so}, the switch faults into {@code
   * SwitchInfoCfg} every {@code -listWatchPeriod} (the super-pod membership comes with the chips,
   * {@code NodeChips.superPod}).
   */
  private void startA3Reporting() {
    if (npus.isEmpty() || !npus.get(0).chipName().startsWith("Ascend910")) return;
    Path lib = deviceManager.dcmi().path();
    LingQuSwitch.open(new DcmiLibrarySource(lib, "loaded", List.of(lib)))
        .ifPresent(
            sw -> {
              SwitchInfoPublisher publisher =
                  new SwitchInfoPublisher(sw, SwitchFaultLevels.shipped(), deviceInfo, clock);
              switchLoop =
                  Executors.newSingleThreadScheduledExecutor(
                      r -> {
                        Thread t = new Thread(r, "vnpu-switch-faults");
                        t.setDaemon(true);
                        return t;
                      });
              long period = options.listWatchPeriod().toMillis();
              switchLoop.scheduleWithFixedDelay(
                  publisher::publishOnce, 0, period, TimeUnit.MILLISECONDS);
            });
  }

  /**
   * {@code -hotReset=2}: the jobs from this node's pods (chip names of the inventory), the job
   * ConfigMaps and Events in the job's namespace, bounds from {@code WaitDeviceResetTime} (150 s)
   * and {@code -linkdownTimeout}.
   */
  private TrainingRecovery trainingRecovery(ChipUsage usage, MindClusterComponents components) {
    Map<String, Integer> logicOfChip = new HashMap<>();
    for (ChipState c : components.inventory().current().chips()) {
      logicOfChip.put(c.name(), c.npu().logicId());
    }
    return TrainingRecovery.builder()
        .monitor(health)
        .resetter(dcmiHealth.chipResetter())
        .usage(usage)
        .jobs(
            new TrainingPods(
                () ->
                    client
                        .pods()
                        .inAnyNamespace()
                        .withField("spec.nodeName", options.nodeName())
                        .list()
                        .getItems(),
                options.nodeName(),
                logicOfChip))
        .store(new ResetConfigMaps(client, options.nodeName()))
        .events(new RecoveryEventsToKube(client, options.nodeName(), clock))
        .clock(clock)
        .bounds(
            new TrainingRecovery.Bounds(
                Duration.ofSeconds(60), Duration.ofSeconds(150), options.linkdownTimeout(), 3))
        .build();
  }

  static void quietly(String what, AutoCloseable c) {
    if (c == null) return;
    try {
      c.close();
    } catch (Exception e) {
      LOG.warn("stopping the {} failed: {}", what, e.toString());
    }
  }
}
