package io.vnpu.kube.agent;

import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.NpuUsage;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import java.util.List;

/** A {@link DeviceManager} over a fixed list of healthy NPUs, recording whether it was closed. */
final class FixedDeviceManager implements DeviceManager {
  private final List<Npu> npus;
  volatile boolean closed;

  FixedDeviceManager(String chipName, int count) {
    this.npus =
        java.util.stream.IntStream.range(0, count)
            .mapToObj(
                i ->
                    new Npu(
                        String.format("0000000%d-00000000-00000000-00000000-00000000", i),
                        i,
                        i,
                        i,
                        0,
                        chipName,
                        64L << 30,
                        20,
                        7,
                        DeviceHealth.HEALTHY,
                        0))
            .toList();
  }

  @Override
  public List<Npu> discover() {
    return npus;
  }

  @Override
  public DeviceHealth health(int logicId) {
    return DeviceHealth.HEALTHY;
  }

  @Override
  public NpuUsage usage(int logicId) {
    return new NpuUsage(0, -1);
  }

  @Override
  public Vnpu createVnpu(int logicId, String templateName) {
    throw new DeviceException("not supported by this test double: createVnpu");
  }

  @Override
  public void destroyVnpu(int logicId, int vnpuId) {
    throw new DeviceException("not supported by this test double: destroyVnpu");
  }

  @Override
  public List<Vnpu> listVnpus(int logicId) {
    return List.of();
  }

  @Override
  public void close() {
    closed = true;
  }
}
