package io.vnpu.kube.dra.devices;

import io.vnpu.api.model.Npu;
import java.util.Optional;

/**
 * Facts about an NPU that the {@code Npu} model does not carry and a ResourceSlice publishes: its
 * PCIe bus ID (from DCMI {@code dcmi_get_device_pcie_info}) and its HCCS ring.
 */
public interface NpuDeviceFacts {

  /** The PCI bus ID {@code dddd:bb:dd.f}, empty when unknown. */
  Optional<String> pciBusId(Npu npu);

  /**
   * The HCCS ring of the chip as {@code ring-<n>}: on 910 (A/B) nodes phy IDs 0-3 and 4-7 form the
   * two rings of four (the rule the device plugin's preferred allocation uses); chips without HCCS
   * (310P) and the A3 super-pod chip ({@code Ascend910}) have none.
   */
  static Optional<String> topologyGroup(Npu npu) {
    if (!npu.chipName().startsWith("910")) {
      return Optional.empty();
    }
    return Optional.of(
        "ring-" + io.vnpu.kube.resource.PreferredAllocationPolicy.hccsGroupOfFour(npu.phyId()));
  }

  /** No PCIe facts (tests, hosts without {@code dcmi_get_device_pcie_info}). */
  NpuDeviceFacts NONE = npu -> Optional.empty();
}
