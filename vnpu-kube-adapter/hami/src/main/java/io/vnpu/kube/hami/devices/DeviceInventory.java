package io.vnpu.kube.hami.devices;

import io.vnpu.api.fault.LiveDeviceHealth;
import io.vnpu.api.health.HealthSource;
import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's current NPUs (from the {@link DeviceManager}) and their health (from the node's one
 * {@link HealthSource}). Every {@link #refresh()} reads health for every NPU, so a device that
 * recovers is republished (upstream only refreshes while something is unhealthy, bug 9.3). Only
 * NPUs of the chip model the plugin serves are listed: HAMi's plugin serves one model per node
 * (protocol spec section 1.1), and an NPU of another model (a second card type in the server) would
 * be registered and advertised with this model's memory, cores and templates; such NPUs are left
 * out and named in a warning whenever their set changes. Thread-safe.
 */
public final class DeviceInventory {
  private static final Logger LOG = LoggerFactory.getLogger(DeviceInventory.class);

  private final DeviceManager deviceManager;
  private final HealthSource health;
  private final HamiNodeSettings node;
  private final String chipName;
  private volatile Set<String> otherModels = Set.of();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private volatile NodeDevices current = NodeDevices.EMPTY;

  /** Health read live from the device manager ({@link LiveDeviceHealth}). */
  public DeviceInventory(
      DeviceManager deviceManager, HamiChipSettings chip, HamiNodeSettings node) {
    this(deviceManager, new LiveDeviceHealth(deviceManager), chip, node);
  }

  /**
   * @param health the node's health source (fault levels, escalation, recovery)
   * @param chip the chip model served: only NPUs of its {@code chipName} are listed
   */
  public DeviceInventory(
      DeviceManager deviceManager,
      HealthSource health,
      HamiChipSettings chip,
      HamiNodeSettings node) {
    this.deviceManager = Objects.requireNonNull(deviceManager, "deviceManager");
    this.health = Objects.requireNonNull(health, "health");
    this.chipName = Objects.requireNonNull(chip, "chip").chipName();
    this.node = Objects.requireNonNull(node, "node");
  }

  /** The last successfully read snapshot (empty before the first refresh). */
  public NodeDevices current() {
    return current;
  }

  /**
   * Re-reads the NPU list and each NPU's health; listeners run when the set of NPUs or any health
   * changed. On a driver error the previous snapshot is kept.
   *
   * @return the new snapshot
   * @throws DeviceException when the NPU list cannot be read
   */
  public NodeDevices refresh() {
    List<Npu> found = deviceManager.discover();
    List<Npu> kept = new ArrayList<>(found.size());
    Set<String> other = new TreeSet<>();
    for (Npu n : found) {
      if (node.filterUuids().contains(n.uuid()) || node.filterCardIds().contains(n.cardId()))
        continue;
      if (!n.chipName().equals(chipName)) {
        other.add(n.uuid() + " (chip " + n.chipName() + ", logic ID " + n.logicId() + ")");
        continue;
      }
      DeviceHealth h = health.chip(n.logicId()).toDeviceHealth();
      kept.add(n.withHealth(h));
      if (!h.healthy())
        LOG.warn("NPU {} (logic ID {}) unhealthy: {}", n.uuid(), n.logicId(), h.reason());
    }
    if (!other.equals(otherModels)) {
      otherModels = Set.copyOf(other);
      if (!other.isEmpty())
        LOG.warn(
            "NPUs of another model than {} are not served (one chip model per node, the one"
                + " the first NPU is): {}",
            chipName,
            other);
    }
    NodeDevices next = new NodeDevices(kept);
    NodeDevices previous = current;
    current = next;
    if (!next.healthByUuid().equals(previous.healthByUuid())) {
      LOG.info("NPU set or health changed: {}", next.healthByUuid());
      for (Runnable l : listeners) {
        try {
          l.run();
        } catch (RuntimeException e) {
          // one broken listener must not stop health publication for the others
          LOG.error("device change listener failed", e);
        }
      }
    }
    return next;
  }

  /** Adds a change listener; close the handle to remove it. */
  public AutoCloseable watch(Runnable onChange) {
    Objects.requireNonNull(onChange, "onChange");
    listeners.add(onChange);
    return () -> listeners.remove(onChange);
  }
}
