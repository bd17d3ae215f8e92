package io.vnpu.kube.dra.vnpu;

import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.kube.dra.devices.NpuDiscovery;
import java.util.List;
import java.util.Objects;

/**
 * {@link VnpuDriver} over the DCMI device manager discovery opened; refuses (a per-claim error, the
 * kubelet retries) while DCMI is not open yet.
 */
public final class DiscoveredVnpuDriver implements VnpuDriver {

  private final NpuDiscovery discovery;

  public DiscoveredVnpuDriver(NpuDiscovery discovery) {
    this.discovery = Objects.requireNonNull(discovery, "discovery");
  }

  @Override
  public Vnpu create(int logicId, String template) {
    return dcmi().createVnpu(logicId, template);
  }

  @Override
  public void destroy(int logicId, int vnpuId) {
    dcmi().destroyVnpu(logicId, vnpuId);
  }

  @Override
  public List<Vnpu> list(int logicId) {
    return dcmi().listVnpus(logicId);
  }

  private DeviceManager dcmi() {
    return discovery
        .deviceManager()
        .orElseThrow(
            () -> new DeviceException("DCMI is not open yet (discovery is still retrying)"));
  }
}
