package io.vnpu.dcmi;

/**
 * PCIe identity from {@code dcmi_get_device_pcie_info_v2}.
 *
 * @param vendorId PCI vendor ID (0x19e5 for Huawei)
 * @param deviceId PCI device ID
 * @param domain PCI domain
 * @param bus bus number
 * @param device device number
 * @param function function number
 */
public record PcieInfo(int vendorId, int deviceId, int domain, int bus, int device, int function) {

  /** Bus ID as npu-smi and the device plugin print it, e.g. {@code 0000:C1:00.0}. */
  public String busId() {
    return String.format("%04X:%02X:%02X.%X", domain, bus, device, function);
  }
}
