package io.vnpu.kube.dra.vnpu;

import io.vnpu.api.config.ChipConfig;
import io.vnpu.api.config.DeviceConfig;
import io.vnpu.api.model.Npu;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which chips are cut into hard vNPUs by {@code memCapacity} ({@code --enable-hard-vnpu}) and
 * with which templates: the one place that rule lives, read by the slice publisher (what to
 * offer) and the claim planner (what to create).
 *
 * <p>Only the 910B family is split (openFuyao's driver does the same): 310P and 910C are
 * published whole, with one log line per chip name saying so. A 910B chip needs an entry with
 * templates in the HAMi {@code device-config.yaml} ({@code vnpus.configs[]}, matched by
 * {@code chipName}); without one it is published whole, also logged once.
 */
public final class HardVnpuChips {

  private static final Logger log = LoggerFactory.getLogger(HardVnpuChips.class);

  /** Hard vNPU off: every chip whole. */
  public static final HardVnpuChips OFF = new HardVnpuChips(false, new DeviceConfig(false,
      java.util.List.of()));

  private final boolean enabled;
  private final DeviceConfig config;
  private final Set<String> told = ConcurrentHashMap.newKeySet();

  /**
   * @param enabled {@code --enable-hard-vnpu}
   * @param config  the chip models and their vNPU templates
   */
  public HardVnpuChips(boolean enabled, DeviceConfig config) {
    this.enabled = enabled;
    this.config = Objects.requireNonNull(config, "config");
  }

  /**
   * The chip's model entry when {@code npu} is offered as hard vNPUs, else empty (whole chip).
   */
  public Optional<ChipConfig> templatesFor(Npu npu) {
    if (!enabled) {
      return Optional.empty();
    }
    if (!npu.chipName().startsWith("910B")) {
      tell(npu.chipName(), "hard vNPU: chip " + npu.chipName() + " is not split by memCapacity"
          + " (only the 910B family is); its NPUs are published whole");
      return Optional.empty();
    }
    Optional<ChipConfig> c = config.forChipName(npu.chipName())
        .filter(cc -> !cc.templates().isEmpty());
    if (c.isEmpty()) {
      tell(npu.chipName(), "hard vNPU: device-config.yaml has no vNPU templates for chipName "
          + npu.chipName() + "; its NPUs are published whole");
    }
    return c;
  }

  private void tell(String chip, String line) {
    if (told.add(chip)) {
      log.info("{}", line);
    }
  }
}
