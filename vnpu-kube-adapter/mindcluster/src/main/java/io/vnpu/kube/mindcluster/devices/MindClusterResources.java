package io.vnpu.kube.mindcluster.devices;

/**
 * Extended resource names and device names as MindCluster forms them (spec sections 3.2, 3.3). Each
 * method is the one place its format is written.
 */
public final class MindClusterResources {
  /** Prefix of every MindCluster extended resource and pod annotation key. */
  public static final String PREFIX = "huawei.com/";

  /** Resource word of dynamic vNPU mode: one fake device per AI Core. */
  public static final String NPU_CORE = "npu-core";

  /** Extended resource of dynamic vNPU mode. */
  public static final String NPU_CORE_RESOURCE = PREFIX + NPU_CORE;

  private MindClusterResources() {}

  /** A whole chip: {@code <Name>-<phy>}, e.g. {@code Ascend910-3}. */
  public static String chip(CardType type, int phyId) {
    return chip(type.deviceName(), phyId);
  }

  /** A whole chip of a device type: {@code <type>-<phy>}, e.g. {@code Ascend310P-VPro-0}. */
  public static String chip(String deviceType, int phyId) {
    return deviceType + "-" + phyId;
  }

  /**
   * A static vNPU: {@code <Name>-<suffix>-<vdevID>-<phy>}, e.g. {@code
   * Ascend910-12c.3cpu.32g-100-0}.
   */
  public static String vnpu(CardType type, String suffix, int vnpuId, int phyId) {
    return type.deviceName() + "-" + suffix + "-" + vnpuId + "-" + phyId;
  }

  /** Device type (resource word) of a static vNPU: {@code <Name>-<suffix>}. */
  public static String vnpuType(CardType type, String suffix) {
    return type.deviceName() + "-" + suffix;
  }

  /** One share-mode copy of a chip: {@code <Name>-<phy>-<i>}, e.g. {@code Ascend310P-1-3}. */
  public static String share(CardType type, int phyId, int index) {
    return type.deviceName() + "-" + phyId + "-" + index;
  }

  /** One AI Core in dynamic mode: {@code npu-core-<k>}, k counting across chips. */
  public static String core(int k) {
    return NPU_CORE + "-" + k;
  }

  /** {@code huawei.com/<type>}. */
  public static String resource(String deviceType) {
    return PREFIX + deviceType;
  }

  /** The socket file of a device type's plugin: {@code <type>.sock}. */
  public static String socketName(String resourceName) {
    return resourceName.substring(resourceName.lastIndexOf('/') + 1) + ".sock";
  }
}
