package io.vnpu.kube.podresources;

import io.vnpu.api.health.ChipUsage;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ChipUsage} from the kubelet's PodResources API: a chip is in use while a container holds
 * one of its devices. The adapter says which resources are NPUs and which chip a device ID names
 * (MindCluster {@code Ascend910-3} → phy 3 → logic ID; HAMi {@code <uuid>-<i>} → the chip of that
 * UUID). When the kubelet cannot be asked, every chip counts as in use (a reset must never hit a
 * chip in use).
 */
public final class PodResourcesChipUsage implements ChipUsage {
  private static final Logger LOG = LoggerFactory.getLogger(PodResourcesChipUsage.class);

  private final PodResourcesClient client;
  private final Predicate<String> npuResource;
  private final Function<String, OptionalInt> logicOfDevice;

  /**
   * @param npuResource whether a resource name is one of this plugin's, e.g. {@code n ->
   *     n.startsWith("huawei.com/")}
   * @param logicOfDevice the chip (logic ID) a device ID belongs to, empty for IDs of no chip
   */
  public PodResourcesChipUsage(
      PodResourcesClient client,
      Predicate<String> npuResource,
      Function<String, OptionalInt> logicOfDevice) {
    this.client = Objects.requireNonNull(client, "client");
    this.npuResource = Objects.requireNonNull(npuResource, "npuResource");
    this.logicOfDevice = Objects.requireNonNull(logicOfDevice, "logicOfDevice");
  }

  @Override
  public boolean inUse(int logicId) {
    Map<String, Set<String>> allocated;
    try {
      allocated = client.allocatedDevices();
    } catch (RuntimeException e) {
      LOG.warn(
          "kubelet PodResources API unavailable, NPU logic {} counts as in use: {}",
          logicId,
          e.getMessage());
      return true;
    }
    for (Map.Entry<String, Set<String>> e : allocated.entrySet()) {
      if (!npuResource.test(e.getKey())) continue;
      for (String id : e.getValue()) {
        OptionalInt logic = logicOfDevice.apply(id);
        if (logic.isPresent() && logic.getAsInt() == logicId) return true;
      }
    }
    return false;
  }
}
