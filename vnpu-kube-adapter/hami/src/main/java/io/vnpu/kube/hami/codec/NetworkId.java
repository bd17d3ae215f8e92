package io.vnpu.kube.hami.codec;

import java.util.OptionalInt;

/**
 * The HCCS group the scheduler uses to keep multi-NPU jobs inside one interconnect domain ({@code
 * custominfo.NetworkID}, protocol spec section 2.2): 910-class boards have two groups of four NPUs;
 * 910C pairs dies into modules instead, so it always gets 0.
 */
public final class NetworkId {
  private NetworkId() {}

  /**
   * @param type commonWord
   * @param index register index of the device
   * @return the NetworkID, or empty when {@code type} does not start with {@code Ascend910}
   */
  public static OptionalInt of(String type, int index) {
    if (!type.startsWith("Ascend910")) return OptionalInt.empty();
    if (type.equals("Ascend910C")) return OptionalInt.of(0);
    return OptionalInt.of(index > 3 ? 1 : 0);
  }
}
