package io.vnpu.kube.testing;

import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.NpuUsage;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import java.util.ArrayList;
import java.util.List;

/**
 * In-memory DeviceManager whose NPU list can change (a chip drops out) and whose discovery can
 * fail or find nothing for a while (DCMI not ready at boot). No vNPUs.
 */
public final class MutableDeviceManager implements DeviceManager {
  private List<Npu> npus;
  private int failuresLeft;
  private int emptyLeft;
  private int discoverCalls;

  public MutableDeviceManager(List<Npu> npus) {
    this.npus = List.copyOf(npus);
  }

  /** A 910B3 with 64 GiB HBM and 20 AI Cores; die-ID UUID derived from the phy ID. */
  public static Npu npu910b3(int logicId, int phyId, int numaNode) {
    return new Npu(String.format("%08X-00000000-00000000-00000000-%08X", 0x1000 + phyId, phyId),
        logicId, phyId, logicId, 0, "910B3", 64L << 30, 20, 7, DeviceHealth.HEALTHY, numaNode);
  }

  /** Eight 910B3 chips, logic ID = phy ID, NUMA 0 for phy 0-3 and 1 for 4-7. */
  public static List<Npu> eight910b3() {
    List<Npu> l = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      l.add(npu910b3(i, i, i / 4));
    }
    return l;
  }

  public synchronized void setNpus(List<Npu> next) {
    npus = List.copyOf(next);
  }

  /** The next {@code n} discoveries throw as an uninitialised DCMI does. */
  public synchronized void failNext(int n) {
    failuresLeft = n;
  }

  /** The next {@code n} discoveries find no card (driver still loading). */
  public synchronized void emptyNext(int n) {
    emptyLeft = n;
  }

  public synchronized int discoverCalls() {
    return discoverCalls;
  }

  @Override
  public synchronized List<Npu> discover() {
    discoverCalls++;
    if (failuresLeft > 0) {
      failuresLeft--;
      throw new DeviceException("dcmi_get_card_list failed: -8005");
    }
    if (emptyLeft > 0) {
      emptyLeft--;
      return List.of();
    }
    return npus;
  }

  @Override
  public DeviceHealth health(int logicId) {
    return DeviceHealth.HEALTHY;
  }

  @Override
  public NpuUsage usage(int logicId) {
    return new NpuUsage(0, 0);
  }

  @Override
  public Vnpu createVnpu(int logicId, String templateName) {
    throw new DeviceException("no vNPUs on this fake");
  }

  @Override
  public void destroyVnpu(int logicId, int vnpuId) {
    throw new DeviceException("no vNPUs on this fake");
  }

  @Override
  public List<Vnpu> listVnpus(int logicId) {
    return List.of();
  }

  @Override
  public void close() {}
}
