package io.vnpu.kube.hami;

import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.NpuUsage;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * In-memory DeviceManager: NPUs with settable health, vNPUs with settable use, injectable failures.
 */
final class FakeDeviceManager implements DeviceManager {
  private final List<Npu> npus;
  private final Map<Integer, DeviceHealth> health = new HashMap<>();
  private final Map<Integer, TreeMap<Integer, Vnpu>> vnpus = new HashMap<>();
  private final List<String> calls = new ArrayList<>();
  private boolean failDiscover;
  private String failCreate;
  private RuntimeException discoverThrows;

  FakeDeviceManager(List<Npu> npus) {
    this.npus = List.copyOf(npus);
  }

  static Npu npu(String uuid, int logicId, int phyId) {
    return npu(uuid, logicId, phyId, "910B3");
  }

  /**
   * An NPU of the chip model {@code chipName} (the DCMI name a config entry's chipName matches).
   */
  static Npu npu(String uuid, int logicId, int phyId, String chipName) {
    return new Npu(
        uuid, logicId, phyId, logicId, 0, chipName, 64L << 30, 20, 7, DeviceHealth.HEALTHY, -1);
  }

  synchronized void setHealth(int logicId, DeviceHealth h) {
    health.put(logicId, h);
  }

  synchronized void failDiscover(boolean fail) {
    failDiscover = fail;
  }

  /** Makes discover throw {@code e} (an unexpected exception, not a DCMI error); null stops it. */
  synchronized void throwOnDiscover(RuntimeException e) {
    discoverThrows = e;
  }

  synchronized void failCreate(String message) {
    failCreate = message;
  }

  synchronized void addVnpu(int logicId, int vnpuId, String template, boolean inUse) {
    vnpus
        .computeIfAbsent(logicId, k -> new TreeMap<>())
        .put(vnpuId, new Vnpu(vnpuId, logicId, template, 16384, 5, inUse));
  }

  synchronized void setInUse(int logicId, int vnpuId, boolean inUse) {
    Vnpu v = vnpus.get(logicId).get(vnpuId);
    vnpus
        .get(logicId)
        .put(
            vnpuId,
            new Vnpu(v.vnpuId(), logicId, v.templateName(), v.memoryMib(), v.aiCores(), inUse));
  }

  synchronized List<String> calls() {
    return List.copyOf(calls);
  }

  @Override
  public synchronized List<Npu> discover() {
    calls.add("discover");
    if (failDiscover) throw new DeviceException("dcmi_get_card_list failed: -8001");
    if (discoverThrows != null) throw discoverThrows;
    return npus;
  }

  @Override
  public synchronized DeviceHealth health(int logicId) {
    return health.getOrDefault(logicId, DeviceHealth.HEALTHY);
  }

  @Override
  public synchronized NpuUsage usage(int logicId) {
    return new NpuUsage(0, -1);
  }

  @Override
  public synchronized Vnpu createVnpu(int logicId, String templateName) {
    calls.add("create " + logicId + " " + templateName);
    if (failCreate != null) throw new DeviceException(failCreate);
    TreeMap<Integer, Vnpu> m = vnpus.computeIfAbsent(logicId, k -> new TreeMap<>());
    int id = 100 + logicId * 16;
    while (m.containsKey(id)) id++;
    Vnpu v = new Vnpu(id, logicId, templateName, 16384, 5, false);
    m.put(id, v);
    return v;
  }

  @Override
  public synchronized void destroyVnpu(int logicId, int vnpuId) {
    calls.add("destroy " + logicId + " " + vnpuId);
    TreeMap<Integer, Vnpu> m = vnpus.get(logicId);
    if (m == null || m.remove(vnpuId) == null) throw new DeviceException("no vNPU " + vnpuId);
  }

  @Override
  public synchronized List<Vnpu> listVnpus(int logicId) {
    return List.copyOf(vnpus.getOrDefault(logicId, new TreeMap<>()).values());
  }

  @Override
  public void close() {}
}
