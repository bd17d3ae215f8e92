package io.vnpu.kube.mindcluster.devices;

import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.kube.mindcluster.health.ChipHealth;
import io.vnpu.kube.mindcluster.health.ChipHealthSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's chips, their vNPUs and their health: {@link #refresh()} reads the driver
 * ({@link DeviceManager#discover()}, {@link DeviceManager#listVnpus(int)}) and asks the
 * {@link ChipHealthSource} for every chip, every time (a chip that recovers is republished).
 * Listeners run when anything the kubelet or the ConfigMap sees changed. Thread-safe.
 */
public final class ChipInventory {
  private static final Logger LOG = LoggerFactory.getLogger(ChipInventory.class);

  private final DeviceManager deviceManager;
  private final ChipHealthSource healthSource;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private volatile NodeChips current = NodeChips.EMPTY;

  public ChipInventory(DeviceManager deviceManager, ChipHealthSource healthSource) {
    this.deviceManager = Objects.requireNonNull(deviceManager, "deviceManager");
    this.healthSource = Objects.requireNonNull(healthSource, "healthSource");
  }

  /** The last snapshot read (empty before the first refresh). */
  public NodeChips current() {
    return current;
  }

  /**
   * Re-reads chips, vNPUs and health; on a change the listeners run.
   *
   * @return the new snapshot
   * @throws DeviceException when the chip list cannot be read (the previous snapshot stays)
   * @throws IllegalStateException when the driver reports a chip name MindCluster does not know
   */
  public NodeChips refresh() {
    List<Npu> found = deviceManager.discover();
    List<ChipState> chips = new ArrayList<>(found.size());
    for (Npu n : found) {
      CardType type = CardType.ofChipName(n.chipName()).orElseThrow(() -> new IllegalStateException(
          "chip " + n.chipName() + " (phy ID " + n.phyId() + ") is not a chip MindCluster supports"));
      ChipHealth health = healthSource.health(n);
      chips.add(new ChipState(n, type, vnpusOf(n, type), health));
    }
    NodeChips next = new NodeChips(chips);
    NodeChips previous = current;
    current = next;
    if (!next.equals(previous)) {
      for (Runnable l : listeners) {
        try {
          l.run();
        } catch (RuntimeException e) {
          // one broken listener must not stop health publication for the others
          LOG.warn("chip change listener failed: {}", e.toString());
        }
      }
    }
    return next;
  }

  private List<Vnpu> vnpusOf(Npu npu, CardType type) {
    if (type.templates().isEmpty()) {
      return List.of();
    }
    try {
      return deviceManager.listVnpus(npu.logicId());
    } catch (DeviceException e) {
      // chips without virtualisation answer -8255; the chip is then advertised whole
      LOG.debug("listing vNPUs of phy ID {} failed: {}", npu.phyId(), e.getMessage());
      return List.of();
    }
  }

  /** Adds a change listener; close the handle to remove it. */
  public AutoCloseable watch(Runnable onChange) {
    Objects.requireNonNull(onChange, "onChange");
    listeners.add(onChange);
    return () -> listeners.remove(onChange);
  }
}
