package io.vnpu.api.config;

import io.vnpu.api.model.Npu;
import java.util.List;

/**
 * Devices a node hides from kubelet and the scheduler ({@code nodes[].filterDevices}, HAMi plugin
 * v1.4.0).
 *
 * @param cardIds {@code filterDevices.index}: compared with the DCMI card ID, as HAMi does (not
 *     with the logic or phy ID)
 * @param uuids {@code filterDevices.uuid}: die-ID UUIDs
 */
public record DeviceFilter(List<Integer> cardIds, List<String> uuids) {
  public static final DeviceFilter NONE = new DeviceFilter(List.of(), List.of());

  public DeviceFilter {
    cardIds = List.copyOf(cardIds);
    uuids = List.copyOf(uuids);
  }

  /**
   * True when the NPU is filtered out. UUIDs compare ignoring case: they are hex and users copy
   * them from tools that print either case.
   */
  public boolean excludes(Npu npu) {
    return excludes(npu.cardId(), npu.uuid());
  }

  /** True when a device with this card ID or die-ID UUID is filtered out. */
  public boolean excludes(int cardId, String uuid) {
    return cardIds.contains(cardId) || uuids.stream().anyMatch(u -> u.equalsIgnoreCase(uuid));
  }

  /** True when nothing is filtered. */
  public boolean isEmpty() {
    return cardIds.isEmpty() && uuids.isEmpty();
  }
}
