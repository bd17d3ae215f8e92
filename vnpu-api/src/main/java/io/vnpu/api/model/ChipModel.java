package io.vnpu.api.model;

import java.util.Objects;

/**
 * Static facts about one Ascend chip model, as configured (HAMi {@code device-config.yaml}, {@code
 * vnpus[].chipName/commonWord/memoryCapacity/aiCore/aiCPU}) or read from the driver.
 *
 * @param name chip name as the driver reports it, e.g. {@code 910B3}, {@code 310P3}
 * @param commonWord HAMi resource word, e.g. {@code Ascend910B3}; forms {@code
 *     huawei.com/<commonWord>}
 * @param hbmMib device memory (HBM or DDR) capacity in MiB
 * @param aiCores number of AI Cores on one chip
 * @param aiCpus number of AI CPUs on one chip
 */
public record ChipModel(String name, String commonWord, long hbmMib, int aiCores, int aiCpus) {
  public ChipModel {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(commonWord, "commonWord");
    if (hbmMib <= 0) throw new IllegalArgumentException("hbmMib must be > 0: " + hbmMib);
    if (aiCores < 0) throw new IllegalArgumentException("aiCores must be >= 0: " + aiCores);
    if (aiCpus < 0) throw new IllegalArgumentException("aiCpus must be >= 0: " + aiCpus);
  }

  /** HBM capacity in bytes. */
  public long hbmBytes() {
    return hbmMib * Units.MIB;
  }
}
