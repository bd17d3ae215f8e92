package io.vnpu.kube.dra.modes;

import io.vnpu.api.config.ChipConfig;
import io.vnpu.api.model.Npu;
import io.vnpu.kube.dra.vnpu.HardVnpuChips;
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
 * <ol>
 *   <li>{@code --enable-hard-vnpu} and the chip can be cut into template vNPUs (910B family with
 *       templates in {@code device-config.yaml}, see {@link HardVnpuChips}) → {@link
 *       ChipMode#HARD_VNPU};
 *   <li>else {@code --enable-soft-slicing} → {@link ChipMode#SOFT} (any chip family: the limiter
 *       intercepts the CANN runtime, which is the same on 310P, 910B and 910C);
 *   <li>else {@link ChipMode#WHOLE}.
 * </ol>
 * With both flags on, hard wins where a chip can be hard-split and every other chip is soft: one
 * mode per chip, so hard vNPUs and soft shares never meet on one chip (each would account the chip
 * as if it were alone). The decision is logged once per chip name.
 *
 * <p>Per-chip assignment (and shared counters letting both modes share one chip) is meant to be
 * added here, behind {@link #modeOf(Npu)}.
 */
public final class ChipModes {

  private static final Logger log = LoggerFactory.getLogger(ChipModes.class);

  /** Every chip whole. */
  public static final ChipModes WHOLE = new ChipModes(HardVnpuChips.OFF, false,
      SoftCapacityNames.HAMI);

  private final HardVnpuChips hard;
  private final boolean soft;
  private final SoftCapacityNames names;
  private final Set<String> told = ConcurrentHashMap.newKeySet();

  /**
   * @param hard  {@code --enable-hard-vnpu} and the templates per chip ({@link HardVnpuChips#OFF}
   *              when off)
   * @param soft  {@code --enable-soft-slicing}
   * @param names {@code --capacity-names}: the capacities of soft chips
   */
  public ChipModes(HardVnpuChips hard, boolean soft, SoftCapacityNames names) {
    this.hard = Objects.requireNonNull(hard, "hard");
    this.soft = soft;
    this.names = Objects.requireNonNull(names, "names");
  }

  /** Only hard vNPUs (or whole chips), as before soft slicing existed. */
  public static ChipModes hardOnly(HardVnpuChips hard) {
    return new ChipModes(hard, false, SoftCapacityNames.HAMI);
  }

  /** The mode of {@code npu}. */
  public ChipMode modeOf(Npu npu) {
    if (hard.templatesFor(npu).isPresent()) {
      return ChipMode.HARD_VNPU;
    }
    if (soft) {
      if (told.add(npu.chipName())) {
        log.info("soft slicing: chip {} is published with consumable capacities {} (bytes) and"
            + " {} (percent of AI-core time)", npu.chipName(), names.memory(), names.cores());
      }
      return ChipMode.SOFT;
    }
    return ChipMode.WHOLE;
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
