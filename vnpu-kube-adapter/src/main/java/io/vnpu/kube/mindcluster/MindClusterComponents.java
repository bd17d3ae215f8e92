package io.vnpu.kube.mindcluster;

import io.vnpu.api.health.HealthSource;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.kube.mindcluster.alloc.ContainerAllocator;
import io.vnpu.kube.mindcluster.alloc.ContainerResponses;
import io.vnpu.kube.mindcluster.alloc.DeviceNodes;
import io.vnpu.kube.mindcluster.alloc.DirectAllocator;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import io.vnpu.kube.mindcluster.devices.CardType;
import io.vnpu.kube.mindcluster.devices.ChipInventory;
import io.vnpu.kube.mindcluster.devices.ChipState;
import io.vnpu.kube.mindcluster.devices.DeviceCatalog;
import io.vnpu.kube.mindcluster.devices.NodeChips;
import io.vnpu.kube.mindcluster.volcano.KubeletDeviceMap;
import io.vnpu.kube.resource.ResourceManager;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
 * that the flags fit the chips, fixes the device types, schedules the refresh) →
 * {@link #resourceManagers()} → {@link #close()}. The device types are fixed at start, as upstream
 * (static vNPUs made later need a restart).
 */
public final class MindClusterComponents implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MindClusterComponents.class);

  private final MindClusterOptions options;
  private final DeviceManager deviceManager;
  private final HealthSource healthSource;
  private final ChipInventory inventory;
  private volatile AutoCloseable healthWatch;
  private final DeviceCatalog catalog;
  private final KubeletDeviceMap kubeletMap = new KubeletDeviceMap();
  private final ContainerResponses responses;
  private final Clock clock;
  private volatile List<MindClusterResourceManager> managers = List.of();
  private volatile ScheduledFuture<?> refresh;
  private volatile boolean closed;

  /**
   * @param healthSource the node's chip health (the fault engine's {@code HealthMonitor}, or any
   *     {@link HealthSource}); its changes reach ListAndWatch and the ConfigMap at once
   */
  public MindClusterComponents(MindClusterOptions options, DeviceManager deviceManager,
      HealthSource healthSource, Clock clock) {
    this.options = Objects.requireNonNull(options, "options");
    this.deviceManager = Objects.requireNonNull(deviceManager, "deviceManager");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.healthSource = Objects.requireNonNull(healthSource, "healthSource");
    this.inventory = new ChipInventory(deviceManager, healthSource);
    this.catalog = new DeviceCatalog(options.presetVirtualDevice(), options.shareDevCount());
    this.responses = new ContainerResponses(options.useAscendDocker(), new DeviceNodes(options.devRoot()));
  }

  /**
   * Reads the chips, checks the flags against them and builds one resource manager per device
   * type; with an executor, schedules the refresh every {@code -listWatchPeriod}.
   *
   * @param executor runs the periodic refresh; null to refresh only through {@link #refreshOnce()}
   * @throws DeviceException when the driver cannot be read
   * @throws IllegalArgumentException one line naming the flag that does not fit this node's chips
   */
  public synchronized void start(ScheduledExecutorService executor) {
    if (!managers.isEmpty()) throw new IllegalStateException("MindCluster components already started");
    NodeChips chips = inventory.refresh();
    if (chips.chips().isEmpty()) {
      throw new IllegalArgumentException("the driver reports no NPU on node " + options.nodeName());
    }
    checkFlagsFit(chips);
    List<MindClusterResourceManager> built = new ArrayList<>();
    for (String resource : catalog.advertise(chips).keySet()) {
      built.add(new MindClusterResourceManager(resource, inventory, catalog, kubeletMap,
          allocatorFor(resource)));
    }
    managers = List.copyOf(built);
    healthWatch = healthSource.watch(inventory::updateHealth);
    LOG.info("MindCluster device types on node {}: {}", options.nodeName(),
        built.stream().map(MindClusterResourceManager::resourceName).toList());
    if (executor != null) {
      long period = options.listWatchPeriod().toMillis();
      refresh = executor.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
    }
  }

  private ContainerAllocator allocatorFor(String resource) {
    return new DirectAllocator(inventory::current, catalog, responses);
  }

  private void checkFlagsFit(NodeChips chips) {
    for (ChipState c : chips.chips()) {
      CardType t = c.type();
      if (!options.presetVirtualDevice() && !t.dynamicVnpu()) {
        throw new IllegalArgumentException("-presetVirtualDevice=false: chip " + c.npu().chipName()
            + " (" + t.realType() + ") has no dynamic vNPUs; only 310P, 910B and A3 do");
      }
      if (options.shareDevCount() > 1 && !options.softShare() && !t.shareable()) {
        throw new IllegalArgumentException("-shareDevCount=" + options.shareDevCount() + ": chip "
            + c.npu().chipName() + " (" + t.realType() + ") cannot be shared; only 310P and 310B can"
            + " (or soft sharing with -shareDevCount=100 and -softShareDevConfigDir)");
      }
    }
    if (options.use310PMixedInsert()) {
      throw new IllegalArgumentException("-use310PMixedInsert=true: per-product 310P names need the "
          + "product type, which the DeviceManager port does not report; run without it");
    }
  }

  /**
   * One round of the periodic work: re-read chips and health (ListAndWatch is notified on change).
   *
   * @throws DeviceException when the driver cannot be read
   */
  public void refreshOnce() {
    inventory.refresh();
  }

  private void tick() {
    if (closed) return;
    try {
      refreshOnce();
    } catch (RuntimeException | Error e) {
      // the next period tries again; a scheduled task that throws (an Error too) would stop for good
      LOG.warn("MindCluster refresh failed: {}", e.toString());
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
    AutoCloseable w = healthWatch;
    if (w != null) {
      try {
        w.close();
      } catch (Exception e) {
        LOG.debug("closing the health watch failed: {}", e.toString());
      }
    }
  }
}
