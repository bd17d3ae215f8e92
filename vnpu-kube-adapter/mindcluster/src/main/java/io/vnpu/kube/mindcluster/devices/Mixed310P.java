package io.vnpu.kube.mindcluster.devices;

import java.util.Map;
import java.util.Optional;

/**
 * 310P mixed insertion ({@code -use310PMixedInsert=true}, spec section 3.2): a server holding
 * several single-chip 310P card models advertises each model under its own device type, chosen by
 * the card's product ({@code dcmi_get_product_type}). Only these three products take part; any
 * other product (an Atlas 300I Duo, a server without a product type) makes the flag unusable on the
 * node.
 */
public final class Mixed310P {
  private static final Map<String, String> DEVICE_TYPE =
      Map.of(
          "Atlas 300V Pro", "Ascend310P-VPro",
          "Atlas 300V", "Ascend310P-V",
          "Atlas 300I Pro", "Ascend310P-IPro");

  /** The products mixed insertion accepts, for error messages. */
  public static final String PRODUCTS = "Atlas 300I Pro, Atlas 300V, Atlas 300V Pro";

  private Mixed310P() {}

  /**
   * The device type of a card product, e.g. {@code Atlas 300V Pro} → {@code Ascend310P-VPro}
   * (device names {@code Ascend310P-VPro-<phy>}, resource {@code huawei.com/Ascend310P-VPro});
   * empty for a product mixed insertion does not take.
   */
  public static Optional<String> deviceType(String productType) {
    return Optional.ofNullable(DEVICE_TYPE.get(productType));
  }
}
