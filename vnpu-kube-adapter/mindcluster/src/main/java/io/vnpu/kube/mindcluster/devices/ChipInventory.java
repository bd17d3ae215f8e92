package io.vnpu.kube.mindcluster.devices;

import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.HealthSource;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.SuperPodInfo;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's chips, their vNPUs and their health. {@link #refresh()} reads the driver ({@link
 * DeviceManager#discover()}, {@link DeviceManager#listVnpus(int)}); the health of every chip is the
 * node's {@link HealthSource}'s (the one place chip health and faults come from), taken at each
 * refresh and again whenever the source reports a change ({@link #updateHealth}). Listeners run
 * when anything the kubelet or the ConfigMap sees changed. Thread-safe.
 */
public final class ChipInventory {
  private static final Logger LOG = LoggerFactory.getLogger(ChipInventory.class);

  private final DeviceManager deviceManager;
  private final HealthSource healthSource;
  private final boolean mixed310P;
  private final boolean wholeCardHealth;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final Object lock = new Object();
  private volatile NodeChips current = NodeChips.EMPTY;

  /** {@code dcmi_get_product_type} of a two-chip 310P card whose chips reset together. */
  static final String DUO = "Atlas 300I Duo";

  /** The product of a card does not change while the node runs: read once per logic ID. */
  private final Map<Integer, Optional<String>> productTypes = new ConcurrentHashMap<>();

  /** Nor its super-pod membership (MindCluster reads it once at start). */
  private final Map<Integer, SuperPodInfo> superPods = new ConcurrentHashMap<>();

  public ChipInventory(DeviceManager deviceManager, HealthSource healthSource) {
    this(deviceManager, healthSource, false, false);
  }

  /**
   * @param mixed310P {@code -use310PMixedInsert}: a 310P chip whose card is a product of {@link
   *     Mixed310P} gets that product's device type, and its vNPUs are not read (mixed insertion has
   *     no virtual instances, as upstream)
   * @param wholeCardHealth {@code -hotReset=0}: the card of an Atlas 300I Duo resets as a whole, so
   *     when one of its chips is unhealthy the other is reported unhealthy too
   */
  public ChipInventory(
      DeviceManager deviceManager,
      HealthSource healthSource,
      boolean mixed310P,
      boolean wholeCardHealth) {
    this.deviceManager = Objects.requireNonNull(deviceManager, "deviceManager");
    this.healthSource = Objects.requireNonNull(healthSource, "healthSource");
    this.mixed310P = mixed310P;
    this.wholeCardHealth = wholeCardHealth;
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
    Map<Integer, ChipHealth> health = healthSource.chips();
    List<ChipState> chips = new ArrayList<>(found.size());
    for (Npu n : found) {
      CardType type =
          CardType.ofChipName(n.chipName())
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "chip "
                              + n.chipName()
                              + " (phy ID "
                              + n.phyId()
                              + ") is not a chip MindCluster supports"));
      Optional<String> product =
          productTypes.computeIfAbsent(
              n.logicId(), l -> read("product type", n, deviceManager::productType));
      Optional<String> mixedType =
          mixed310P && type == CardType.ASCEND310P
              ? product.flatMap(Mixed310P::deviceType)
              : Optional.empty();
      chips.add(
          new ChipState(
              n,
              type,
              mixedType.isPresent() ? List.of() : vnpusOf(n, type),
              health.getOrDefault(n.logicId(), ChipHealth.normal(n.logicId())),
              product,
              read("RoCE address", n, deviceManager::roceIp),
              mixedType.orElse(type.deviceName()),
              false,
              superPods.computeIfAbsent(n.logicId(), l -> superPodOf(n))));
    }
    return publish(new NodeChips(cardRule(chips)));
  }

  /**
   * Upstream's Atlas 300I Duo rule under {@code -hotReset=0}: a card with an unhealthy chip is
   * unhealthy as a whole (both chips reset together), for the kubelet and the ConfigMap alike; the
   * healthy chip carries no fault of its own.
   */
  private List<ChipState> cardRule(List<ChipState> chips) {
    if (!wholeCardHealth) return chips;
    java.util.Set<Integer> badCards = new java.util.HashSet<>();
    for (ChipState c : chips) {
      if (duo(c) && !c.health().healthy()) badCards.add(c.npu().cardId());
    }
    List<ChipState> out = new ArrayList<>(chips.size());
    for (ChipState c : chips) {
      out.add(
          duo(c) && c.health().healthy() && badCards.contains(c.npu().cardId())
              ? c.withCardPeerUnhealthy(true)
              : c);
    }
    return out;
  }

  private static boolean duo(ChipState c) {
    return c.productType().filter(DUO::equals).isPresent();
  }

  /**
   * Applies a health snapshot of the source to the chips already known; listeners run on a change.
   */
  public NodeChips updateHealth(Map<Integer, ChipHealth> health) {
    synchronized (lock) {
      List<ChipState> chips = new ArrayList<>();
      for (ChipState c : current.chips()) {
        int logic = c.npu().logicId();
        chips.add(c.withHealth(health.getOrDefault(logic, ChipHealth.normal(logic))));
      }
      return publish(new NodeChips(cardRule(chips)));
    }
  }

  private NodeChips publish(NodeChips next) {
    NodeChips previous;
    synchronized (lock) {
      previous = current;
      current = next;
    }
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

  /**
   * A driver fact of a chip that may be missing: an error reading it is logged and counts as "none"
   * (upstream tolerates a failing product-type query; a RoCE address is re-read every refresh
   * because hccn_tool may configure it after start).
   */
  private static Optional<String> read(String what, Npu npu, IntFunction<Optional<String>> query) {
    try {
      return query.apply(npu.logicId());
    } catch (DeviceException e) {
      LOG.debug("{} of phy ID {} unreadable: {}", what, npu.phyId(), e.getMessage());
      return Optional.empty();
    }
  }

  private SuperPodInfo superPodOf(Npu npu) {
    try {
      return deviceManager.superPod(npu.logicId());
    } catch (DeviceException e) {
      LOG.debug("super-pod membership of phy ID {} unreadable: {}", npu.phyId(), e.getMessage());
      return SuperPodInfo.UNKNOWN;
    }
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
