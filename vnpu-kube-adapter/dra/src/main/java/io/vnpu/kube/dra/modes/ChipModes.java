package io.vnpu.kube.dra.modes;

import static java.util.stream.Collectors.joining;

import io.vnpu.api.config.ChipConfig;
import io.vnpu.api.model.Npu;
import io.vnpu.kube.dra.devices.NpuDeviceNames;
import io.vnpu.kube.dra.vnpu.HardVnpuChips;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that decides each NPU's {@link ChipMode} from the plugin's options and the chip's
 * family; read by the slice publisher (what to offer) and the claim planner (what to prepare).
 *
 * <p>Rule:
 *
 * <ol>
 *   <li>{@code --enable-hard-vnpu} and the chip can be cut into template vNPUs (910B family or A3
 *       with templates in {@code device-config.yaml}, see {@link HardVnpuChips}) → {@link
 *       ChipMode#HARD_VNPU};
 *   <li>else {@code --enable-soft-slicing} → {@link ChipMode#SOFT} (any chip family: the limiter
 *       intercepts the CANN runtime, which is the same on 310P, 910B and 910C);
 *   <li>else {@link ChipMode#WHOLE}.
 * </ol>
 *
 * With both flags on, hard wins where a chip can be hard-split and every other chip is soft: one
 * mode per chip, so hard vNPUs and soft shares never meet on one chip (each would account the chip
 * as if it were alone). The decision is logged once per chip name.
 *
 * <p>{@code --chip-modes} ({@link ChipModePins}) pins a chip to a mode and comes before the rule; a
 * chip pinned {@code hard} that cannot be hard-split follows the rule (logged once per chip).
 *
 * <p>With shared counters ({@link #offered(Npu, boolean)}), an unpinned chip that is hard by the
 * rule while soft slicing is on is offered in both modes: its hard device {@code npu-<phy>} and its
 * soft device {@code npu-<phy>-soft}, kept exclusive by the chip's counters ({@code ChipCounters};
 * docs/dra-sharing-modes.md).
 */
public final class ChipModes {

  private static final Logger log = LoggerFactory.getLogger(ChipModes.class);

  /** Every chip whole. */
  public static final ChipModes WHOLE =
      new ChipModes(HardVnpuChips.OFF, false, SoftCapacityNames.HAMI);

  private final HardVnpuChips hard;
  private final boolean soft;
  private final SoftCapacityNames names;
  private final ChipModePins pins;
  private final Set<String> told = ConcurrentHashMap.newKeySet();

  /**
   * @param hard {@code --enable-hard-vnpu} and the templates per chip ({@link HardVnpuChips#OFF}
   *     when off)
   * @param soft {@code --enable-soft-slicing}
   * @param names {@code --capacity-names}: the capacities of soft chips
   */
  public ChipModes(HardVnpuChips hard, boolean soft, SoftCapacityNames names) {
    this(hard, soft, names, ChipModePins.NONE);
  }

  /**
   * @param pins {@code --chip-modes}: modes pinned by phy ID, before the rule
   */
  public ChipModes(HardVnpuChips hard, boolean soft, SoftCapacityNames names, ChipModePins pins) {
    this.hard = Objects.requireNonNull(hard, "hard");
    this.soft = soft;
    this.names = Objects.requireNonNull(names, "names");
    this.pins = Objects.requireNonNull(pins, "pins");
  }

  /**
   * Logs once each {@code --chip-modes} entry that pins none of {@code npus} (the node's chips): it
   * is ignored, not an error, since one DaemonSet value serves nodes with different chips.
   */
  public void warnUnmatchedPins(java.util.Collection<Npu> npus) {
    List<Integer> phyIds = npus.stream().map(Npu::phyId).sorted().toList();
    for (ChipModePins.Range r : pins.unmatched(phyIds)) {
      if (told.add("unmatched-" + r)) {
        log.warn(
            "{} = {}: entry {} pins no chip of this node (phy IDs {}); ignored",
            ChipModePins.FLAG,
            pins.ranges().stream().map(ChipModePins.Range::toString).collect(joining(",")),
            r,
            phyIds);
      }
    }
  }

  /** Only hard vNPUs (or whole chips), as before soft slicing existed. */
  public static ChipModes hardOnly(HardVnpuChips hard) {
    return new ChipModes(hard, false, SoftCapacityNames.HAMI);
  }

  /**
   * The mode of {@code npu}, the one of its device {@code npu-<phy>}: pinned by {@code
   * --chip-modes}, else by the rule.
   */
  public ChipMode modeOf(Npu npu) {
    Optional<ChipMode> pinned = pins.of(npu.phyId());
    if (pinned.isPresent()) {
      if (pinned.get() != ChipMode.HARD_VNPU || hard.templatesFor(npu).isPresent()) {
        return pinned.get();
      }
      if (told.add("pin-" + npu.phyId())) {
        log.info(
            "{}: chip {} (phy ID {}) cannot be hard-split; offered by the default rule",
            ChipModePins.FLAG,
            npu.chipName(),
            npu.phyId());
      }
    }
    if (hard.templatesFor(npu).isPresent()) {
      return ChipMode.HARD_VNPU;
    }
    if (soft) {
      if (told.add(npu.chipName())) {
        log.info(
            "soft slicing: chip {} is published with consumable capacities {} (bytes) and"
                + " {} (percent of AI-core time)",
            npu.chipName(),
            names.memory(),
            names.cores());
      }
      return ChipMode.SOFT;
    }
    return ChipMode.WHOLE;
  }

  /**
   * The modes {@code npu} is offered in, its own device's ({@link #modeOf}) first: with {@code
   * counters} (shared counters can keep modes of one chip exclusive), an unpinned hard chip is also
   * offered soft when soft slicing is on; otherwise one mode.
   */
  public List<ChipMode> offered(Npu npu, boolean counters) {
    ChipMode own = modeOf(npu);
    if (counters && soft && own == ChipMode.HARD_VNPU && pins.of(npu.phyId()).isEmpty()) {
      return List.of(ChipMode.HARD_VNPU, ChipMode.SOFT);
    }
    return List.of(own);
  }

  /**
   * The mode of device {@code deviceName} of {@code npu}: {@link ChipMode#SOFT} for its soft device
   * {@code npu-<phy>-soft} ({@link NpuDeviceNames#soft}), else {@link #modeOf}.
   */
  public ChipMode modeOf(Npu npu, String deviceName) {
    return NpuDeviceNames.isSoft(deviceName) ? ChipMode.SOFT : modeOf(npu);
  }

  /** The vNPU templates of {@code npu} when its mode is {@link ChipMode#HARD_VNPU}, else empty. */
  public Optional<ChipConfig> templatesFor(Npu npu) {
    return hard.templatesFor(npu);
  }

  /** The capacity names of soft chips. */
  public SoftCapacityNames capacityNames() {
    return names;
  }
}
