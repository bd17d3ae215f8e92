package io.vnpu.api.spi;

import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.NpuUsage;
import io.vnpu.api.model.Vnpu;
import java.util.List;
import java.util.Optional;

/**
 * Port to the node's NPU driver. {@code vnpu-dcmi} implements it over {@code libdcmi.so}; tests and
 * embedders may supply their own. Implementations are thread-safe.
 */
public interface DeviceManager extends AutoCloseable {

  /**
   * Enumerates every physical NPU on the node, ordered by logic ID.
   *
   * @throws DeviceException when the driver cannot be queried
   */
  List<Npu> discover();

  /**
   * Current health of one NPU; never throws for a failing device, a call error is itself reported
   * as unhealthy with the reason.
   *
   * @param logicId DCMI logic ID
   */
  DeviceHealth health(int logicId);

  /**
   * Live memory and AI Core use of one NPU.
   *
   * @param logicId DCMI logic ID
   * @throws DeviceException when the driver cannot be queried or the NPU does not exist
   */
  NpuUsage usage(int logicId);

  /**
   * Creates a vNPU from a template on an NPU; the driver picks the lowest free vNPU ID.
   *
   * @param logicId DCMI logic ID of the physical NPU
   * @param templateName template, e.g. {@code vir05_1c_16g}
   * @return the created vNPU
   * @throws DeviceException when the template is unknown or the chip lacks resources
   */
  Vnpu createVnpu(int logicId, String templateName);

  /**
   * Destroys a vNPU.
   *
   * @throws DeviceException when it does not exist or is in use by a container
   */
  void destroyVnpu(int logicId, int vnpuId);

  /**
   * Lists the vNPUs that exist on one NPU, ordered by vNPU ID.
   *
   * @throws DeviceException when the driver cannot be queried
   */
  List<Vnpu> listVnpus(int logicId);

  /**
   * The board ID of the NPU's card ({@code dcmi_get_device_board_info}, {@code board_id}), e.g.
   * {@code 0x28} on an Atlas 300I A2 inference card; empty when the driver cannot say. This default
   * reports none.
   *
   * @param logicId DCMI logic ID
   * @throws DeviceException when the NPU does not exist
   */
  default java.util.OptionalInt boardId(int logicId) {
    return java.util.OptionalInt.empty();
  }

  /**
   * The driver's version as DCMI reports it ({@code dcmi_get_dcmi_version}), e.g. {@code 24.1.rc2};
   * empty when the driver cannot say. This default reports none.
   */
  default Optional<String> driverVersion() {
    return Optional.empty();
  }

  /**
   * The product (card model) the NPU sits on, as the driver names it (DCMI {@code
   * dcmi_get_product_type}), e.g. {@code Atlas 300I Pro}, {@code Atlas 300V Pro}, {@code Atlas
   * 300V}, {@code Atlas 300I Duo}. Empty when the driver reports none (server products) or cannot
   * say. This default reports none.
   *
   * @param logicId DCMI logic ID
   * @throws DeviceException when the NPU does not exist
   */
  default Optional<String> productType(int logicId) {
    return Optional.empty();
  }

  /**
   * The address of the NPU's parameter-plane (RoCE) port (DCMI {@code dcmi_get_device_ip}), in the
   * text form HCCL rank tables carry: {@code 192.168.100.101}, or an RFC 5952 IPv6 address. Empty
   * when the chip has none (310P, an unconfigured port, a link-local IPv6 address only) or the
   * driver cannot say. This default reports none.
   *
   * @param logicId DCMI logic ID
   * @throws DeviceException when the NPU does not exist
   */
  default Optional<String> roceIp(int logicId) {
    return Optional.empty();
  }

  /**
   * The NPU's super-pod membership (DCMI {@code dcmi_spod_info}, A3/A5 only); {@link
   * io.vnpu.api.model.SuperPodInfo#UNKNOWN} where the driver does not answer. This default reports
   * unknown.
   *
   * @param logicId DCMI logic ID
   * @throws DeviceException when the NPU does not exist
   */
  default io.vnpu.api.model.SuperPodInfo superPod(int logicId) {
    return io.vnpu.api.model.SuperPodInfo.UNKNOWN;
  }

  @Override
  void close();
}
