package io.vnpu.api.slice;

import java.util.Objects;

/**
 * A vNPU the node must create for a slice ({@code dcmi_create_vdevice} through {@link
 * io.vnpu.api.spi.DeviceManager#createVnpu}).
 *
 * @param npu the physical NPU
 * @param logicId its DCMI logic ID on this node
 * @param template template name
 */
public record VnpuToCreate(NpuRef npu, int logicId, String template) {
  public VnpuToCreate {
    Objects.requireNonNull(npu, "npu");
    Objects.requireNonNull(template, "template");
    if (logicId < 0) throw new IllegalArgumentException("logicId must be >= 0: " + logicId);
  }
}
