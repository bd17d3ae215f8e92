package io.vnpu.api.spi;

import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.NpuUsage;
import io.vnpu.api.model.Vnpu;
import java.util.List;

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
   * @param logicId      DCMI logic ID of the physical NPU
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

  @Override
  void close();
}
