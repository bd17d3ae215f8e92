package io.vnpu.kube.testing;

import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.NpuUsage;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * In-memory DeviceManager whose NPU list can change (a chip drops out) and whose discovery can fail
 * or find nothing for a while (DCMI not ready at boot). vNPUs after {@link #enableVnpus}: created
 * from known templates while the chip's HBM holds them (else refused as DCMI refuses with
 * insufficient resources), IDs from {@code phy*16+100} up as the Ascend driver numbers them, a
 * stand-in {@code vdavinci<id>} file per vNPU in the given device directory.
 */
public final class MutableDeviceManager implements DeviceManager {
  private List<Npu> npus;
  private int failuresLeft;
  private int emptyLeft;
  private int discoverCalls;
  private final Map<Integer, TreeMap<Integer, Vnpu>> vnpus = new HashMap<>();
  private Map<String, Long> templateMib = Map.of();
  private Path vnpuNodeDir;
  private int createCalls;

  public MutableDeviceManager(List<Npu> npus) {
    this.npus = List.copyOf(npus);
  }

  /** A 910B3 with 64 GiB HBM and 20 AI Cores; die-ID UUID derived from the phy ID. */
  public static Npu npu910b3(int logicId, int phyId, int numaNode) {
    return new Npu(
        String.format("%08X-00000000-00000000-00000000-%08X", 0x1000 + phyId, phyId),
        logicId,
        phyId,
        logicId,
        0,
        "910B3",
        64L << 30,
        20,
        7,
        DeviceHealth.HEALTHY,
        numaNode);
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

  /** A 910B4 with 32 GiB HBM and 20 AI Cores. */
  public static Npu npu910b4(int logicId, int phyId) {
    return new Npu(
        String.format("%08X-00000000-00000000-00000000-%08X", 0x2000 + phyId, phyId),
        logicId,
        phyId,
        logicId,
        0,
        "910B4",
        32L << 30,
        20,
        7,
        DeviceHealth.HEALTHY,
        0);
  }

  /**
   * Lets this fake create vNPUs.
   *
   * @param templates template name → memory in MiB
   * @param nodeDir where the stand-in {@code vdavinci<id>} files are created
   */
  public synchronized void enableVnpus(Map<String, Long> templates, Path nodeDir) {
    this.templateMib = Map.copyOf(templates);
    this.vnpuNodeDir = nodeDir;
  }

  /** How many times {@link #createVnpu} was called (refusals included). */
  public synchronized int createCalls() {
    return createCalls;
  }

  @Override
  public synchronized Vnpu createVnpu(int logicId, String templateName) {
    createCalls++;
    Long mib = templateMib.get(templateName);
    if (mib == null) {
      throw new DeviceException(
          "dcmi_create_vdevice: template " + templateName + " not supported (-8005)");
    }
    Npu npu =
        npus.stream()
            .filter(n -> n.logicId() == logicId)
            .findFirst()
            .orElseThrow(() -> new DeviceException("no NPU with logic ID " + logicId));
    TreeMap<Integer, Vnpu> m = vnpus.computeIfAbsent(logicId, k -> new TreeMap<>());
    long used = m.values().stream().mapToLong(Vnpu::memoryMib).sum();
    if (used + mib > npu.hbmMib()) {
      throw new DeviceException(
          "dcmi_create_vdevice: insufficient resources on logic ID " + logicId + " (-8020)");
    }
    int id = npu.phyId() * 16 + 100;
    while (m.containsKey(id)) {
      id++;
    }
    Vnpu v = new Vnpu(id, logicId, templateName, mib, 0, false);
    m.put(id, v);
    try {
      Files.writeString(vnpuNodeDir.resolve("vdavinci" + id), "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return v;
  }

  @Override
  public synchronized void destroyVnpu(int logicId, int vnpuId) {
    TreeMap<Integer, Vnpu> m = vnpus.getOrDefault(logicId, new TreeMap<>());
    Vnpu v = m.get(vnpuId);
    if (v == null) {
      throw new DeviceException(
          "dcmi_set_destroy_vdevice: no vNPU " + vnpuId + " on logic ID " + logicId);
    }
    if (v.inUse()) {
      throw new DeviceException("dcmi_set_destroy_vdevice: vNPU " + vnpuId + " is in use");
    }
    m.remove(vnpuId);
    try {
      Files.deleteIfExists(vnpuNodeDir.resolve("vdavinci" + vnpuId));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized List<Vnpu> listVnpus(int logicId) {
    return List.copyOf(vnpus.getOrDefault(logicId, new TreeMap<>()).values());
  }

  @Override
  public void close() {}
}
