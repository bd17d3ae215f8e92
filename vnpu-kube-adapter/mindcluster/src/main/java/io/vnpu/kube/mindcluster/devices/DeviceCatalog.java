package io.vnpu.kube.mindcluster.devices;

import io.vnpu.api.model.Vnpu;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which devices each MindCluster resource advertises for a snapshot of the chips (spec sections
 * 3.2, 3.3). Pure.
 *
 * <ul>
 *   <li>Dynamic vNPU mode ({@code -presetVirtualDevice=false}): only {@code huawei.com/npu-core},
 *       one {@code npu-core-<k>} per AI Core, k counting across chips in logic-ID order.
 *   <li>A chip with static vNPUs: the chip itself is not advertised; each vNPU is {@code
 *       <Name>-<suffix>-<vdevID>-<phy>} under {@code huawei.com/<Name>-<suffix>}. A vNPU whose
 *       template is not on the family's whitelist is left out (as upstream).
 *   <li>{@code -shareDevCount N > 1}: {@code <Name>-<phy>-<i>}, i in 0..N-1, under the chip
 *       resource.
 *   <li>Otherwise the chip, {@code <Name>-<phy>}, under {@code huawei.com/<Name>}; with 310P mixed
 *       insertion Name is the card product's device type ({@code Ascend310P-VPro-0} under {@code
 *       huawei.com/Ascend310P-VPro}).
 * </ul>
 */
public final class DeviceCatalog {
  private static final Logger LOG = LoggerFactory.getLogger(DeviceCatalog.class);

  private final boolean presetVirtualDevice;
  private final int shareDevCount;

  /**
   * @param presetVirtualDevice {@code -presetVirtualDevice}
   * @param shareDevCount {@code -shareDevCount}
   */
  public DeviceCatalog(boolean presetVirtualDevice, int shareDevCount) {
    if (shareDevCount < 1)
      throw new IllegalArgumentException("shareDevCount must be >= 1: " + shareDevCount);
    this.presetVirtualDevice = presetVirtualDevice;
    this.shareDevCount = shareDevCount;
  }

  /**
   * Resource name → its devices, resources in first-seen order; the whole-chip resource of every
   * family present is always included (possibly with no device) in preset mode.
   */
  public Map<String, List<AdvertisedDevice>> advertise(NodeChips chips) {
    Map<String, List<AdvertisedDevice>> out = new LinkedHashMap<>();
    if (!presetVirtualDevice) {
      List<AdvertisedDevice> cores =
          out.computeIfAbsent(MindClusterResources.NPU_CORE_RESOURCE, k -> new ArrayList<>());
      int k = 0;
      for (ChipState c : chips.chips()) {
        for (int i = 0; i < c.npu().aiCores(); i++) {
          cores.add(
              new AdvertisedDevice(
                  MindClusterResources.core(k++),
                  MindClusterResources.NPU_CORE_RESOURCE,
                  c,
                  Optional.empty()));
        }
      }
      return out;
    }
    for (ChipState c : chips.chips()) {
      String chipResource = c.resourceName();
      List<AdvertisedDevice> whole = out.computeIfAbsent(chipResource, k -> new ArrayList<>());
      if (!c.vnpus().isEmpty()) {
        for (Vnpu v : c.vnpus()) {
          Optional<String> suffix =
              VnpuSuffix.of(v.templateName())
                  .filter(s -> c.type().templates().contains(v.templateName()));
          if (suffix.isEmpty()) {
            LOG.warn(
                "vNPU {} on phy ID {} has template {} which {} does not allow; not advertised",
                v.vnpuId(),
                c.npu().phyId(),
                v.templateName(),
                c.type().realType());
            continue;
          }
          String resource =
              MindClusterResources.resource(MindClusterResources.vnpuType(c.type(), suffix.get()));
          out.computeIfAbsent(resource, k -> new ArrayList<>())
              .add(
                  new AdvertisedDevice(
                      MindClusterResources.vnpu(
                          c.type(), suffix.get(), v.vnpuId(), c.npu().phyId()),
                      resource,
                      c,
                      Optional.of(v)));
        }
      } else if (shareDevCount > 1) {
        for (int i = 0; i < shareDevCount; i++) {
          whole.add(
              new AdvertisedDevice(
                  MindClusterResources.share(c.type(), c.npu().phyId(), i),
                  chipResource,
                  c,
                  Optional.empty()));
        }
      } else {
        whole.add(new AdvertisedDevice(c.name(), chipResource, c, Optional.empty()));
      }
    }
    return out;
  }

  /** The devices of one resource, empty when the snapshot has none. */
  public List<AdvertisedDevice> devices(NodeChips chips, String resourceName) {
    return advertise(chips).getOrDefault(resourceName, List.of());
  }
}
