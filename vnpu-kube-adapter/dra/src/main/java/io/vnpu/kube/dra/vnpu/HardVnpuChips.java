package io.vnpu.kube.dra.vnpu;

import io.vnpu.api.config.ChipConfig;
import io.vnpu.api.config.DeviceConfig;
import io.vnpu.api.model.Npu;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which chips are cut into hard vNPUs by {@code memCapacity} ({@code --enable-hard-vnpu}) and with
 * which templates: the one place that rule lives, read by the slice publisher (what to offer) and
 * the claim planner (what to create).
 *
 * <p>The 910B family and A3 (910C, chip name {@code Ascend910}) are split, the chips whose DCMI
 * creates vNPUs by template; 310P and 910A are published whole, with one log line per chip name
 * saying so. A chip needs an entry with templates in the HAMi {@code device-config.yaml} ({@code
 * vnpus.configs[]}) whose {@code chipName} is the chip's and whose {@code aiCore} is the chip's AI
 * Core count (DCMI {@code computing.aic}; an entry or chip without a count matches any): the two A3
 * SKUs report the same chip name, 24 AI Cores on training dies ({@code vir06_1c_16g}, {@code
 * vir12_3c_32g}) and 20 on inference dies ({@code vir05_1c_16g}, {@code vir10_3c_32g}, the 910C
 * entry HAMi ships), and a die refuses the other SKU's templates. Without a matching entry the chip
 * is published whole, also logged once.
 */
public final class HardVnpuChips {

  private static final Logger log = LoggerFactory.getLogger(HardVnpuChips.class);

  /** The chip name A3 (910C) dies report. */
  static final String A3_CHIP_NAME = "Ascend910";

  /** Hard vNPU off: every chip whole. */
  public static final HardVnpuChips OFF =
      new HardVnpuChips(false, new DeviceConfig(false, List.of()));

  private final boolean enabled;
  private final DeviceConfig config;
  private final Set<String> told = ConcurrentHashMap.newKeySet();

  /**
   * @param enabled {@code --enable-hard-vnpu}
   * @param config the chip models and their vNPU templates
   */
  public HardVnpuChips(boolean enabled, DeviceConfig config) {
    this.enabled = enabled;
    this.config = Objects.requireNonNull(config, "config");
  }

  /** The chip's model entry when {@code npu} is offered as hard vNPUs, else empty (whole chip). */
  public Optional<ChipConfig> templatesFor(Npu npu) {
    if (!enabled) {
      return Optional.empty();
    }
    if (!npu.chipName().startsWith("910B") && !npu.chipName().equals(A3_CHIP_NAME)) {
      tell(
          npu.chipName(),
          "hard vNPU: chip "
              + npu.chipName()
              + " is not split by memCapacity"
              + " (only the 910B family and A3 are); its NPUs are published whole");
      return Optional.empty();
    }
    List<ChipConfig> named =
        config.chips().stream()
            .filter(cc -> cc.chipName().equals(npu.chipName()) && !cc.templates().isEmpty())
            .toList();
    Optional<ChipConfig> c = named.stream().filter(cc -> sameCores(cc, npu)).findFirst();
    if (named.isEmpty()) {
      tell(
          npu.chipName() + "/" + npu.aiCores(),
          "hard vNPU: device-config.yaml has no vNPU"
              + " templates for chipName "
              + npu.chipName()
              + "; its NPUs are published whole");
    } else if (c.isEmpty()) {
      tell(
          npu.chipName() + "/" + npu.aiCores(),
          "hard vNPU: device-config.yaml's vNPU templates"
              + " for chipName "
              + npu.chipName()
              + " are for aiCore "
              + named.stream().map(cc -> Integer.toString(cc.chip().aiCores())).distinct().toList()
              + "; these chips have "
              + npu.aiCores()
              + " AI Cores and are published whole");
    }
    return c;
  }

  private static boolean sameCores(ChipConfig entry, Npu npu) {
    return entry.chip().aiCores() == 0
        || npu.aiCores() == 0
        || entry.chip().aiCores() == npu.aiCores();
  }

  private void tell(String chip, String line) {
    if (told.add(chip)) {
      log.info("{}", line);
    }
  }
}
