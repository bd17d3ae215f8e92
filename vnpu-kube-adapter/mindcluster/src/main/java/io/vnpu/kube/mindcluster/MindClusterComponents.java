package io.vnpu.kube.mindcluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vnpu.api.health.HealthSource;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.kube.errors.Causes;
import io.vnpu.kube.limiter.ElfSharedObject;
import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.limiter.LimiterProvisioning;
import io.vnpu.kube.limiter.LimiterVerifier;
import io.vnpu.kube.mindcluster.alloc.ContainerAllocator;
import io.vnpu.kube.mindcluster.alloc.ContainerResponses;
import io.vnpu.kube.mindcluster.alloc.DeviceNodes;
import io.vnpu.kube.mindcluster.alloc.DirectAllocator;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import io.vnpu.kube.mindcluster.devices.CardType;
import io.vnpu.kube.mindcluster.devices.ChipInventory;
import io.vnpu.kube.mindcluster.devices.ChipState;
import io.vnpu.kube.mindcluster.devices.DeviceCatalog;
import io.vnpu.kube.mindcluster.devices.Mixed310P;
import io.vnpu.kube.mindcluster.devices.NodeChips;
import io.vnpu.kube.mindcluster.kube.DeviceInfoConfigMap;
import io.vnpu.kube.mindcluster.kube.NodeReporter;
import io.vnpu.kube.mindcluster.kube.WriteLimiter;
import io.vnpu.kube.mindcluster.volcano.DynamicVnpuAllocator;
import io.vnpu.kube.mindcluster.volcano.KubeletDeviceMap;
import io.vnpu.kube.mindcluster.volcano.SoftShareAllocator;
import io.vnpu.kube.mindcluster.volcano.VolcanoAllocator;
import io.vnpu.kube.mindcluster.volcano.VolcanoKeys;
import io.vnpu.kube.mindcluster.volcano.VolcanoPods;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.QuotaRegionFactory;
import io.vnpu.kube.resource.ResourceManager;
import io.vnpu.kube.softslice.SoftSliceLayout;
import io.vnpu.kube.softslice.SoftSlices;
import io.vnpu.quota.region.QuotaRegions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MindCluster side of one node agent, wired and embeddable: the chip inventory with its health
 * source, one {@link MindClusterResourceManager} per device type (each served by its own gRPC
 * device plugin and socket), and the periodic refresh every {@code -listWatchPeriod}.
 *
 * <p>Lifecycle: construct → {@link #start(ScheduledExecutorService)} (reads the chips once, checks
 * that the flags fit the chips, fixes the device types, schedules the refresh) → {@link
 * #resourceManagers()} → {@link #close()}. The device types are fixed at start, as upstream (static
 * vNPUs made later need a restart).
 */
public final class MindClusterComponents implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MindClusterComponents.class);

  private final MindClusterOptions options;

  /**
   * The soft-share containers' slices: regions, registrations and the sweep of gone pods'
   * directories.
   */
  private final Optional<SoftSlices> softShare;

  private final DeviceManager deviceManager;
  private final HealthSource healthSource;
  private final ChipInventory inventory;
  private volatile AutoCloseable healthWatch;
  private final DeviceCatalog catalog;
  private final KubeletDeviceMap kubeletMap = new KubeletDeviceMap();
  private final ContainerResponses responses;
  private final Clock clock;
  private final KubernetesClient client;
  private final VolcanoPods pods;
  private final DeviceInfoConfigMap configMap;
  private final NodeReporter nodeReporter;
  private volatile DynamicVnpuAllocator dynamic;
  private volatile AutoCloseable chipWatch;

  /** Upstream's pod lock: one Volcano claim at a time on this node, across device types. */
  private final Object nodeLock = new Object();

  private volatile List<MindClusterResourceManager> managers = List.of();
  private volatile ScheduledFuture<?> refresh;

  /** {@code baseDeviceInfos} as last written to the node (null before / after a failed write). */
  private volatile String reportedBaseInfos;

  private volatile boolean closed;
  private volatile Map<String, io.fabric8.kubernetes.api.model.Pod> lastSlicePods = Map.of();
  private volatile boolean kubeletMapRestored;

  /**
   * @param client the API server (pods for the Volcano handshake, the device-info ConfigMap, node
   *     labels); not closed here
   * @param healthSource the node's chip health (the fault engine's {@code HealthMonitor}, or any
   *     {@link HealthSource}); its changes reach ListAndWatch and the ConfigMap at once
   */
  public MindClusterComponents(
      MindClusterOptions options,
      KubernetesClient client,
      DeviceManager deviceManager,
      HealthSource healthSource,
      Clock clock) {
    this(
        options,
        client,
        VolcanoPods.PodLister.byFieldSelector(client, options.nodeName()),
        deviceManager,
        healthSource,
        clock);
  }

  /**
   * As {@link #MindClusterComponents(MindClusterOptions, KubernetesClient, DeviceManager,
   * HealthSource, Clock)} with another way to list this node's pods.
   */
  public MindClusterComponents(
      MindClusterOptions options,
      KubernetesClient client,
      VolcanoPods.PodLister podLister,
      DeviceManager deviceManager,
      HealthSource healthSource,
      Clock clock) {
    this(options, client, podLister, deviceManager, healthSource, clock, defaultSoftShare(options));
  }

  /**
   * As above with the soft-share enforcement given: where the per-container quota regions go and
   * which limiter enforces them (used only with {@code -softShareDevConfigDir}).
   */
  public MindClusterComponents(
      MindClusterOptions options,
      KubernetesClient client,
      VolcanoPods.PodLister podLister,
      DeviceManager deviceManager,
      HealthSource healthSource,
      Clock clock,
      Optional<SoftSlices> softShare) {
    this.softShare =
        Objects.requireNonNull(softShare, "softShare").filter(s -> options.softShare());
    this.options = Objects.requireNonNull(options, "options");
    this.client = Objects.requireNonNull(client, "client");
    this.pods = new VolcanoPods(client, options.nodeName(), podLister);
    this.configMap =
        new DeviceInfoConfigMap(
            client,
            options.nodeName(),
            clock,
            new WriteLimiter(clock, WriteLimiter.MIN_GAP, WriteLimiter.REFRESH));
    this.nodeReporter = new NodeReporter(client, options.nodeName());
    this.deviceManager = Objects.requireNonNull(deviceManager, "deviceManager");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.healthSource = Objects.requireNonNull(healthSource, "healthSource");
    this.inventory =
        new ChipInventory(
            deviceManager, healthSource, options.use310PMixedInsert(), options.hotReset() == 0);
    this.catalog = new DeviceCatalog(options.presetVirtualDevice(), options.shareDevCount());
    this.responses =
        new ContainerResponses(options.ascendDockerInUse(), new DeviceNodes(options.devRoot()));
  }

  /**
   * Our limiter in {@link LimiterFiles#HAMI_HOST_DIR}, installed there from the image's {@link
   * LimiterFiles#HAMI_ASSETS_DIR} when the image carries it (as the HAMi and DRA agents do, same
   * code: {@link LimiterProvisioning}), else verified only; and the slices in the one layout of
   * this project's backends under {@code -softShareDevConfigDir} ({@link SoftSliceLayout#vnpu}:
   * {@code regions/} and {@code compute/}). Empty without soft sharing.
   */
  static Optional<SoftSlices> defaultSoftShare(MindClusterOptions options) {
    return options
        .softShareDevConfigDir()
        .map(
            dir -> {
              LimiterFiles files = LimiterFiles.hami(LimiterFiles.HAMI_HOST_DIR);
              java.nio.file.Path image =
                  java.nio.file.Path.of(LimiterFiles.HAMI_ASSETS_DIR, LimiterFiles.LIBRARY);
              LimiterVerifier gate =
                  LimiterProvisioning.provision(
                      files,
                      java.nio.file.Files.isRegularFile(image)
                          ? Optional.of(image)
                          : Optional.empty(),
                      ElfSharedObject.thisMachine());
              return new SoftSlices(
                  SoftSliceLayout.vnpu(dir, files),
                  QuotaRegionFactory.writing(new QuotaRegions()),
                  gate);
            });
  }

  /**
   * Reads the chips, checks the flags against them and builds one resource manager per device type;
   * with an executor, schedules the refresh every {@code -listWatchPeriod}.
   *
   * @param executor runs the periodic refresh; null to refresh only through {@link #refreshOnce()}
   * @throws DeviceException when the driver cannot be read
   * @throws IllegalArgumentException one line naming the flag that does not fit this node's chips
   */
  public synchronized void start(ScheduledExecutorService executor) {
    if (!managers.isEmpty())
      throw new IllegalStateException("MindCluster components already started");
    NodeChips chips = inventory.refresh();
    if (chips.chips().isEmpty()) {
      throw new IllegalArgumentException("the driver reports no NPU on node " + options.nodeName());
    }
    checkFlagsFit(chips);
    sweepSoftShare();
    List<MindClusterResourceManager> built = new ArrayList<>();
    for (String resource : catalog.advertise(chips).keySet()) {
      built.add(
          new MindClusterResourceManager(
              resource, inventory, catalog, kubeletMap, allocatorFor(resource)));
    }
    managers = List.copyOf(built);
    restoreKubeletMap();
    healthWatch = healthSource.watch(inventory::updateHealth);
    reportNode(chips);
    publishDeviceInfo();
    chipWatch = inventory.watch(this::publishDeviceInfo);
    LOG.info(
        "MindCluster device types on node {}: {}",
        options.nodeName(),
        built.stream().map(MindClusterResourceManager::resourceName).toList());
    if (executor != null) {
      long period = options.listWatchPeriod().toMillis();
      refresh = executor.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
    }
  }

  private void reportNode(NodeChips chips) {
    try {
      nodeReporter.report(chips, driverVersion(), boardId(chips));
      reportedBaseInfos = NodeReporter.baseDeviceInfos(chips);
    } catch (RuntimeException e) {
      // labels help the scheduler but the plugin serves without them; the operator sees why
      LOG.warn(
          "writing the labels and annotations of node {} through API server {} failed"
              + " (retried every -listWatchPeriod; the plugin serves without them): {}",
          options.nodeName(),
          apiServer(),
          Causes.describe(e));
    }
  }

  /** The API server's address for log lines, e.g. {@code https://10.0.0.1:6443/}. */
  private String apiServer() {
    try {
      return String.valueOf(client.getMasterUrl());
    } catch (RuntimeException e) {
      return "(unknown)";
    }
  }

  private java.util.OptionalInt boardId(NodeChips chips) {
    try {
      return deviceManager.boardId(chips.chips().get(0).npu().logicId());
    } catch (DeviceException e) {
      LOG.debug("board ID unreadable: {}", e.getMessage());
      return java.util.OptionalInt.empty();
    }
  }

  private Optional<String> driverVersion() {
    try {
      return deviceManager.driverVersion();
    } catch (DeviceException e) {
      LOG.debug("driver version unreadable: {}", e.getMessage());
      return Optional.empty();
    }
  }

  private ContainerAllocator allocatorFor(String resource) {
    if (resource.equals(io.vnpu.kube.mindcluster.devices.MindClusterResources.NPU_CORE_RESOURCE)) {
      dynamic =
          new DynamicVnpuAllocator(
              pods, inventory::current, deviceManager, responses, kubeletMap, nodeLock);
      return dynamic;
    }
    boolean wholeChips =
        inventory.current().chips().stream().anyMatch(c -> c.resourceName().equals(resource));
    if (options.softShare() && wholeChips && softShare.isPresent()) {
      return new SoftShareAllocator(
          pods, inventory::current, catalog, responses, softShare.get(), kubeletMap, nodeLock);
    }
    if (options.volcanoType() && wholeChips && options.shareDevCount() == 1) {
      io.vnpu.kube.mindcluster.alloc.SlowNodeEnv slowNode =
          new io.vnpu.kube.mindcluster.alloc.SlowNodeEnv(client);
      return new VolcanoAllocator(
          pods,
          inventory::current,
          responses,
          kubeletMap,
          options.hostIp(),
          nodeLock,
          options.enableSlowNode() ? slowNode::forNamespace : ns -> Map.of());
    }
    // static vNPUs are always allocated by the kubelet directly (section 3.8)
    return new DirectAllocator(inventory::current, catalog, responses);
  }

  private void checkFlagsFit(NodeChips chips) {
    for (ChipState c : chips.chips()) {
      CardType t = c.type();
      if (!options.presetVirtualDevice() && !t.dynamicVnpu()) {
        throw new IllegalArgumentException(
            "-presetVirtualDevice=false: chip "
                + c.npu().chipName()
                + " ("
                + t.realType()
                + ") has no dynamic vNPUs; only 310P, 910B and A3 do");
      }
      if (options.shareDevCount() > 1 && !options.softShare() && !t.shareable()) {
        throw new IllegalArgumentException(
            "-shareDevCount="
                + options.shareDevCount()
                + ": chip "
                + c.npu().chipName()
                + " ("
                + t.realType()
                + ") cannot be shared; only 310P and 310B can"
                + " (or soft sharing with -shareDevCount=100 and -softShareDevConfigDir)");
      }
    }
    if (options.use310PMixedInsert()) {
      // upstream refuses to start unless every card is one of the three mixable 310P products
      for (ChipState c : chips.chips()) {
        if (c.type() != CardType.ASCEND310P
            || c.productType().flatMap(Mixed310P::deviceType).isEmpty()) {
          throw new IllegalArgumentException(
              "-use310PMixedInsert=true: chip "
                  + c.npu().chipName()
                  + " (phy ID "
                  + c.npu().phyId()
                  + ") is on product '"
                  + c.productType().orElse("")
                  + "'; mixed insertion takes only 310P cards "
                  + Mixed310P.PRODUCTS);
        }
      }
    }
  }

  /**
   * One round of the periodic work: re-read chips and health (ListAndWatch is notified on change).
   *
   * @throws DeviceException when the driver cannot be read
   */
  public void refreshOnce() {
    sweepSoftShare();
    DynamicVnpuAllocator d = dynamic;
    if (d != null) {
      try {
        d.cleanup();
      } catch (AllocationException e) {
        LOG.warn("vNPU cleanup: {}", e.getMessage());
      }
    }
    NodeChips chips = inventory.refresh();
    if (!NodeReporter.baseDeviceInfos(chips).equals(reportedBaseInfos)) {
      // a RoCE address configured (or changed) after start reaches baseDeviceInfos, as upstream
      reportNode(chips);
    }
    publishDeviceInfo();
    if (!kubeletMapRestored) restoreKubeletMap();
    if (options.volcanoType() && !kubeletMap.pods().isEmpty()) {
      try {
        int dropped = kubeletMap.retainPods(pods.liveUids());
        if (dropped > 0) LOG.info("dropped the kubelet-ID map of {} pod(s) that are gone", dropped);
      } catch (AllocationException e) {
        LOG.warn("pruning the kubelet-ID map: {}", e.getMessage());
      }
    }
  }

  /**
   * Removes the directories (quota regions) of soft-share containers whose pod is gone or finished,
   * and their compute-registry entries (as the HAMi backend's pod sweep, {@link
   * SoftSlices#removeFinished}); the directories are listed before the pods. Also the first thing
   * {@link #start} does, so entries of containers that went while the agent was down go, and the
   * others are kept as they are in the registry files.
   *
   * @return the directories removed
   */
  public List<java.nio.file.Path> sweepSoftShare() {
    if (softShare.isEmpty()) return List.of();
    SoftSlices cleaner = softShare.get();
    try {
      List<String> entries = cleaner.entries();
      return cleaner.removeFinished(entries, pods.phasesByUid());
    } catch (java.io.IOException | AllocationException e) {
      LOG.warn("soft-share clean-up: {}", e.getMessage());
      return List.of();
    }
  }

  /**
   * The soft-share slices now, for per-slice metrics: each container's region labelled with its pod
   * and the first kubelet device ID (an Allocate does not name the container); a pod that is gone,
   * finished or terminating is not listed, so its series disappear. When the API server cannot be
   * asked, the pods of the last successful list are used, so series do not flap.
   */
  public io.vnpu.kube.observe.SliceSource sliceSource() {
    return () -> {
      if (softShare.isEmpty()) return List.of();
      Map<String, io.fabric8.kubernetes.api.model.Pod> byUid = new java.util.HashMap<>();
      try {
        for (io.fabric8.kubernetes.api.model.Pod p : pods.live())
          byUid.put(p.getMetadata().getUid(), p);
        lastSlicePods = Map.copyOf(byUid);
      } catch (AllocationException e) {
        LOG.debug("metrics: {}; using the last list", e.getMessage());
        byUid = lastSlicePods;
      }
      Map<String, io.fabric8.kubernetes.api.model.Pod> owners = byUid;
      return softShare
          .get()
          .slices(
              dir ->
                  SoftSliceLayout.ownerOf(dir)
                      .map(owners::get)
                      .flatMap(
                          p ->
                              SoftSliceLayout.nameOf(dir)
                                  .map(
                                      n ->
                                          new SoftSlices.Owner(
                                              p.getMetadata().getNamespace(),
                                              p.getMetadata().getName(),
                                              n))));
    };
  }

  /** The soft-share slices of this node (the metrics map the registry directory with it). */
  public Optional<SoftSlices> softShare() {
    return softShare;
  }

  /**
   * Writes the device-info ConfigMap if due (on change, every 5 min, at most once a second); an API
   * error is logged and the next attempt writes.
   */
  public void publishDeviceInfo() {
    try {
      configMap.publish(inventory.current(), held());
    } catch (RuntimeException e) {
      LOG.warn(
          "writing ConfigMap {}/{} through API server {} failed (retried every"
              + " -listWatchPeriod): {}",
          DeviceInfoConfigMap.NAMESPACE,
          configMap.name(),
          apiServer(),
          Causes.describe(e));
    }
  }

  /**
   * After a restart the kubelet-ID → real-chip map is rebuilt from the {@code huawei.com/kltDev}
   * and {@code huawei.com/AscendReal} annotations this plugin wrote on the live pods (Volcano and
   * dynamic vNPU modes), so a fault on a real chip again reaches the kubelet ID that holds it.
   * Until the pods could be listed once, every refresh tries again.
   */
  private void restoreKubeletMap() {
    if (!options.volcanoType()) {
      kubeletMapRestored = true;
      return;
    }
    try {
      Map<String, Map<String, String>> annotations = new java.util.HashMap<>();
      for (io.fabric8.kubernetes.api.model.Pod p : pods.live()) {
        if (p.getMetadata().getUid() != null)
          annotations.put(p.getMetadata().getUid(), VolcanoPods.annotations(p));
      }
      KubeletDeviceMap.Restored r = kubeletMap.restore(annotations);
      kubeletMapRestored = true;
      if (r.pods() > 0)
        LOG.info(
            "kubelet-ID map of {} pod(s) restored from their {} and {} annotations",
            r.pods(),
            VolcanoKeys.KLT_DEV,
            VolcanoKeys.ASCEND_REAL);
      r.skipped().forEach(why -> LOG.warn("kubelet-ID map not restored for {}", why));
    } catch (AllocationException e) {
      LOG.warn("restoring the kubelet-ID map (retried every -listWatchPeriod): {}", e.getMessage());
    }
  }

  /**
   * The chip (logic ID) a container holds through a kubelet device ID of one of this node's
   * resources: the real chip Volcano gave for it where this plugin mapped it (the kubelet's own ID
   * then names another chip), else the chip of the advertised device ({@code Ascend910-3}, {@code
   * Ascend310P-1-0} (copy 0 of phy 1), {@code Ascend910-10c.3cpu.32g-100-0}), else the chip a chip
   * or vNPU name ends in. Empty for an ID of no chip here. What the {@code -hotReset=0} in-use
   * check asks of each device the kubelet's PodResources lists.
   */
  public java.util.OptionalInt logicOfKubeletDevice(String kubeletId) {
    NodeChips snapshot = inventory.current();
    Optional<String> real = kubeletMap.realOf(kubeletId);
    if (real.isPresent()) return logicOfName(snapshot, real.get());
    for (List<io.vnpu.kube.mindcluster.devices.AdvertisedDevice> devices :
        catalog.advertise(snapshot).values()) {
      for (io.vnpu.kube.mindcluster.devices.AdvertisedDevice d : devices) {
        if (d.id().equals(kubeletId)) return java.util.OptionalInt.of(d.chip().npu().logicId());
      }
    }
    return logicOfName(snapshot, kubeletId);
  }

  /**
   * {@code Ascend910-3} or a vNPU name {@code <Name>-<suffix>-<vdevID>-<phy>[_<vgroup>]} → the
   * chip's logic ID.
   */
  private static java.util.OptionalInt logicOfName(NodeChips snapshot, String name) {
    String n = name.strip();
    int u = n.lastIndexOf('_');
    if (u > n.lastIndexOf('-')) n = n.substring(0, u);
    Optional<ChipState> chip = snapshot.byName(n);
    if (chip.isEmpty() && n.split("-").length == 4) {
      try {
        chip = snapshot.byPhyId(Integer.parseInt(n.substring(n.lastIndexOf('-') + 1)));
      } catch (NumberFormatException e) {
        chip = Optional.empty();
      }
    }
    return chip.map(c -> java.util.OptionalInt.of(c.npu().logicId()))
        .orElse(java.util.OptionalInt.empty());
  }

  /**
   * Logic IDs of the chips the live pods' {@code huawei.com/AscendReal} names (Volcano and dynamic
   * modes): in use whatever the kubelet's IDs say. A pod owner can add chips here (and so hold back
   * a reset), never take a chip out of another pod's use.
   *
   * @throws AllocationException when the pods cannot be listed
   */
  public Set<Integer> logicsNamedByPods() throws AllocationException {
    if (!options.volcanoType()) return Set.of();
    NodeChips snapshot = inventory.current();
    Set<Integer> out = new HashSet<>();
    for (io.fabric8.kubernetes.api.model.Pod p : pods.live()) {
      String real = VolcanoPods.annotations(p).get(VolcanoKeys.ASCEND_REAL);
      if (real == null) continue;
      for (String n : real.split(",")) logicOfName(snapshot, n).ifPresent(out::add);
    }
    return out;
  }

  /**
   * Chips pods hold: the real chips of the Volcano pods (live annotations and this plugin's map).
   */
  private Set<String> held() {
    Set<String> out = new HashSet<>(kubeletMap.realInUse(null));
    if (options.volcanoType()) {
      try {
        for (io.fabric8.kubernetes.api.model.Pod p : pods.live()) {
          String real = VolcanoPods.annotations(p).get(VolcanoKeys.ASCEND_REAL);
          if (real != null) {
            for (String n : real.split(",")) if (!n.isBlank()) out.add(n.strip());
          }
        }
      } catch (AllocationException e) {
        LOG.debug("pods for the free-chip list: {}", e.getMessage());
      }
    }
    return out;
  }

  /** The device-info ConfigMap writer (also the home of {@code ManuallySeparateNPU}). */
  public DeviceInfoConfigMap configMap() {
    return configMap;
  }

  /** Kubelet ID → real chip of the pods Volcano placed here. */
  public KubeletDeviceMap kubeletMap() {
    return kubeletMap;
  }

  private void tick() {
    if (closed) return;
    try {
      refreshOnce();
    } catch (RuntimeException | Error e) {
      // the next period tries again; a scheduled task that throws (an Error too) would stop for
      // good
      LOG.warn("MindCluster refresh failed: {}", Causes.describe(e));
    }
  }

  /** One resource manager per device type, fixed at {@link #start}; empty before. */
  public List<ResourceManager> resourceManagers() {
    return List.copyOf(managers);
  }

  /** The manager of one resource, e.g. {@code huawei.com/Ascend910}. */
  public java.util.Optional<MindClusterResourceManager> resourceManager(String resourceName) {
    return managers.stream().filter(m -> m.resourceName().equals(resourceName)).findFirst();
  }

  public ChipInventory inventory() {
    return inventory;
  }

  public MindClusterOptions options() {
    return options;
  }

  @Override
  public void close() {
    closed = true;
    ScheduledFuture<?> r = refresh;
    if (r != null) r.cancel(false);
    softShare.ifPresent(
        reg -> {
          try {
            reg.close();
          } catch (java.io.IOException e) {
            LOG.debug("closing the compute registries: {}", e.toString());
          }
        });
    for (AutoCloseable w : new AutoCloseable[] {healthWatch, chipWatch}) {
      if (w == null) continue;
      try {
        w.close();
      } catch (Exception e) {
        LOG.debug("closing a watch failed: {}", e.toString());
      }
    }
  }
}
