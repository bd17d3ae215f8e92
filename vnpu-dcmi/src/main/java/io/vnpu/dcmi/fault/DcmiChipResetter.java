package io.vnpu.dcmi.fault;

import io.vnpu.api.health.ChipResetter;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.dcmi.CardDevice;
import io.vnpu.dcmi.Dcmi;
import io.vnpu.dcmi.DcmiException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@link ChipResetter} over {@code libdcmi.so} with MindCluster's grouping (vnpu DCMI spec 3.12):
 *
 * <ul>
 *   <li>Atlas 300I Duo (two 310P chips on a card): the card resets as a whole, one call on device
 *       0;
 *   <li>910B with HCCS: the ring of 8 chips (logic IDs 0..7, 8..15) resets together, one call per
 *       chip; 800I A2 without HCCS (board 0x33, 0x3c) and 300I A2 (0x28, 0x29) reset per chip;
 *   <li>910A: rings of 4 chips;
 *   <li>anything else: the chip alone.
 * </ul>
 */
public final class DcmiChipResetter implements ChipResetter {
  private static final Set<Integer> A2_WITHOUT_HCCS = Set.of(0x33, 0x3c, 0x28, 0x29);

  private final Dcmi dcmi;
  private final Map<Integer, CardDevice> chips;
  private final Map<Integer, String> names = new TreeMap<>();
  private final Map<Integer, OptionalInt> boards = new TreeMap<>();

  /**
   * @param probe the probe that enumerated the chips
   */
  public DcmiChipResetter(Dcmi dcmi, DcmiFaultProbe probe) {
    this.dcmi = Objects.requireNonNull(dcmi, "dcmi");
    Map<Integer, CardDevice> m = new TreeMap<>();
    for (int logic : probe.chips()) {
      CardDevice at = probe.address(logic).orElseThrow();
      m.put(logic, at);
      names.put(logic, dcmi.chipInfo(at.cardId(), at.deviceId()).name());
      boards.put(logic, dcmi.boardId(at.cardId(), at.deviceId()));
    }
    this.chips = Map.copyOf(m);
  }

  private CardDevice at(int logicId) {
    CardDevice at = chips.get(logicId);
    if (at == null) throw new DeviceException("no NPU with logic ID " + logicId);
    return at;
  }

  private boolean duo(int logicId) {
    int card = at(logicId).cardId();
    return names.get(logicId).startsWith("310P")
        && chips.values().stream().filter(c -> c.cardId() == card).count() == 2;
  }

  @Override
  public Set<Integer> resetGroup(int logicId) {
    CardDevice me = at(logicId);
    String name = names.get(logicId);
    Set<Integer> group = new TreeSet<>();
    if (duo(logicId)) {
      chips.forEach(
          (l, c) -> {
            if (c.cardId() == me.cardId()) group.add(l);
          });
      return group;
    }
    int ring = 0;
    if (name.startsWith("910B")) {
      boolean noHccs =
          boards.get(logicId).isPresent()
              && A2_WITHOUT_HCCS.contains(boards.get(logicId).getAsInt());
      ring = noHccs ? 0 : 8;
    } else if (name.startsWith("910Pro") || name.startsWith("910Premium")) {
      ring = 4;
    }
    if (ring == 0) return Set.of(logicId);
    for (int l : chips.keySet()) {
      if (l / ring == logicId / ring) group.add(l);
    }
    return group;
  }

  @Override
  public Set<Integer> trainingRing(int logicId) {
    at(logicId);
    String name = names.get(logicId);
    // A3 (chip name "Ascend910"): the server's 16 chips reset as one; 910A and 910B as resetGroup
    if (!name.startsWith("Ascend910")) return resetGroup(logicId);
    Set<Integer> ring = new TreeSet<>();
    for (int l : chips.keySet()) {
      if (l / 16 == logicId / 16) ring.add(l);
    }
    return ring;
  }

  @Override
  public boolean networkHealthy(int logicId) {
    CardDevice at = at(logicId);
    try {
      return dcmi.networkHealth(at.cardId(), at.deviceId()).orElse(0) == 0;
    } catch (DcmiException e) {
      throw new DeviceException(
          "network health of NPU logic " + logicId + ": " + e.getMessage(), e);
    }
  }

  @Override
  public int processCount(int logicId) {
    CardDevice at = at(logicId);
    try {
      return dcmi.processMemory(at.cardId(), at.deviceId()).map(java.util.List::size).orElse(-1);
    } catch (DcmiException e) {
      return -1;
    }
  }

  @Override
  public void reset(Set<Integer> group) {
    Set<Integer> done = new TreeSet<>();
    for (int logic : new TreeSet<>(group)) {
      if (done.contains(logic)) continue;
      CardDevice at = at(logic);
      if (duo(logic)) {
        dcmi.reset(at.cardId(), 0, Dcmi.INBAND_CHANNEL); // the whole card: device 0, as MindCluster
        chips.forEach(
            (l, c) -> {
              if (c.cardId() == at.cardId()) done.add(l);
            });
      } else {
        dcmi.reset(at.cardId(), at.deviceId(), Dcmi.INBAND_CHANNEL);
        done.add(logic);
      }
    }
  }

  @Override
  public int bootStatus(int logicId) {
    CardDevice at = at(logicId);
    return dcmi.bootStatus(at.cardId(), at.deviceId());
  }

  /** The chip name of a watched chip, e.g. {@code 910B3}. */
  public Optional<String> chipName(int logicId) {
    return Optional.ofNullable(names.get(logicId));
  }
}
