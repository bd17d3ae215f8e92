package io.vnpu.kube.mindcluster.devices;

import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The chip family MindCluster derives from the driver's chip name (spec section 1.9), with the
 * device-name prefix it advertises under ({@code Ascend910} for 910A, 910B and A3), the "real card
 * type" of the {@code servertype} label, and what the family supports. The A3 module's chips report
 * chip name {@code Ascend910}; upstream recognises A3 by board ID, which the {@code DeviceManager}
 * port does not carry, so the chip name is used.
 */
public enum CardType {
  /** 910A ({@code 910ProA}, {@code 910ProB}, {@code 910PremiumA}). */
  ASCEND910("Ascend910", "Ascend910", List.of("vir01", "vir02", "vir04", "vir08", "vir16")),
  /** Atlas A2 ({@code 910B1..4}, {@code A2G*}). */
  ASCEND910B(
      "Ascend910",
      "Ascend910B",
      List.of(
          "vir03_1c_8g",
          "vir05_1c_8g",
          "vir05_1c_16g",
          "vir06_1c_16g",
          "vir10_3c_16g",
          "vir10_3c_16g_nm",
          "vir10_3c_32g",
          "vir10_4c_16g_m",
          "vir12_3c_32g")),
  /** Atlas A3 (910C modules; chip name {@code Ascend910}). */
  ASCEND910A3(
      "Ascend910",
      "Ascend910A3",
      List.of("vir05_1c_16g", "vir06_1c_16g", "vir10_3c_32g", "vir12_3c_32g")),
  /** 310P ({@code 310P*}, {@code I2*}). */
  ASCEND310P(
      "Ascend310P",
      "Ascend310P",
      List.of(
          "vir01", "vir02", "vir02_1c", "vir04", "vir04_3c", "vir04_3c_ndvpp", "vir04_4c_dvpp")),
  /** 310B (Atlas 200I/500 A2 SoC). */
  ASCEND310B("Ascend310B", "Ascend310B", List.of()),
  /** 310. */
  ASCEND310("Ascend310", "Ascend310", List.of()),
  /** Ascend 950 ({@code Ascend950*}); advertised as {@code npu}. */
  ASCEND950("npu", "Ascend950", List.of());

  private static final Pattern P310P = Pattern.compile("^(310P\\d?|I2\\d?).*");
  private static final Pattern P910B = Pattern.compile("^(910B\\d|A2G\\d).*");

  private final String deviceName;
  private final String realType;
  private final List<String> templates;

  CardType(String deviceName, String realType, List<String> templates) {
    this.deviceName = deviceName;
    this.realType = realType;
    this.templates = templates;
  }

  /**
   * The family of a DCMI chip name ({@code dcmi_chip_info.chip_name}), e.g. {@code 910B3} → {@link
   * #ASCEND910B}; empty for a name MindCluster does not know.
   */
  public static Optional<CardType> ofChipName(String chipName) {
    if (chipName.startsWith("Ascend950")) return Optional.of(ASCEND950);
    if (chipName.equals("Ascend910")) return Optional.of(ASCEND910A3);
    if (P310P.matcher(chipName).matches()) return Optional.of(ASCEND310P);
    if (chipName.contains("310B")) return Optional.of(ASCEND310B);
    if (chipName.contains("310")) return Optional.of(ASCEND310);
    if (P910B.matcher(chipName).matches()) return Optional.of(ASCEND910B);
    if (chipName.startsWith("910")) return Optional.of(ASCEND910);
    return Optional.empty();
  }

  /**
   * Device-name prefix and resource word: {@code Ascend910}, {@code Ascend310P}, {@code Ascend310},
   * {@code npu}.
   */
  public String deviceName() {
    return deviceName;
  }

  /** Extended resource of whole chips, {@code huawei.com/<deviceName>}. */
  public String resourceName() {
    return MindClusterResources.PREFIX + deviceName;
  }

  /** Real card type, e.g. {@code Ascend910B}, as in the {@code servertype} label. */
  public String realType() {
    return realType;
  }

  /**
   * vNPU templates MindCluster accepts on this family (spec section 2), empty when it has no vNPUs.
   */
  public List<String> templates() {
    return templates;
  }

  /**
   * Whether vNPUs can be created at Allocate ({@code -presetVirtualDevice=false}): 310P, 910B, A3.
   */
  public boolean dynamicVnpu() {
    return this == ASCEND310P || this == ASCEND910B || this == ASCEND910A3;
  }

  /** Whether {@code -shareDevCount > 1} applies: 310P and 310B. */
  public boolean shareable() {
    return this == ASCEND310P || this == ASCEND310B;
  }

  /** Whether the chip has HBM (node label {@code mind-cluster/npu-chip-memory}). */
  public boolean hbm() {
    return this == ASCEND910 || this == ASCEND910B || this == ASCEND910A3 || this == ASCEND950;
  }

  /** Whether the family takes part in HCCL rank tables ({@code ascend-910-configuration}). */
  public boolean rankTable() {
    return this == ASCEND910 || this == ASCEND910B || this == ASCEND910A3 || this == ASCEND950;
  }

  /**
   * The {@code servertype} label value: {@code <realType>-<AI cores>}, {@code npu-<AI cores>} on
   * 950.
   */
  public String serverType(int aiCores) {
    return (this == ASCEND950 ? "npu" : realType) + "-" + aiCores;
  }
}
