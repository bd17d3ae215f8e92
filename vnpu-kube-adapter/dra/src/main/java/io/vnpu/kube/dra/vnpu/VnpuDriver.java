package io.vnpu.kube.dra.vnpu;

import io.vnpu.api.model.Vnpu;
import java.util.List;

/**
 * What claim state needs from DCMI to hold hard vNPUs ({@code DeviceManager#createVnpu}, {@code
 * destroyVnpu}, {@code listVnpus}); a seam so the state can be opened before DCMI is. Every method
 * throws {@link io.vnpu.api.spi.DeviceException} when DCMI refuses or is not open.
 */
public interface VnpuDriver {

  /** Creates a vNPU of {@code template} on the NPU with DCMI logic ID {@code logicId}. */
  Vnpu create(int logicId, String template);

  /** Destroys vNPU {@code vnpuId} on the NPU with logic ID {@code logicId}. */
  void destroy(int logicId, int vnpuId);

  /** The vNPUs that exist on the NPU with logic ID {@code logicId}. */
  List<Vnpu> list(int logicId);
}
