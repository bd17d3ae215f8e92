package io.vnpu.kube.dra.devices;

import io.vnpu.api.model.Npu;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The NPUs this node currently offers, by ResourceSlice device name ({@link NpuDeviceNames}).
 * Written by discovery, read by the slice publisher (what to publish) and by prepare (what may be
 * allocated). Snapshots are immutable; listeners run on the updating thread after each change.
 */
public final class NpuInventory {

  private volatile Map<String, Npu> devices = Map.of();
  private volatile boolean known;
  private final List<Consumer<Map<String, Npu>>> listeners = new CopyOnWriteArrayList<>();

  /** Replaces the set of NPUs; listeners are told when it differs from the previous one. */
  public void update(List<Npu> npus) {
    Map<String, Npu> m = new LinkedHashMap<>();
    npus.stream()
        .sorted((a, b) -> Integer.compare(a.phyId(), b.phyId()))
        .forEach(n -> m.put(NpuDeviceNames.of(n.phyId()), n));
    Map<String, Npu> next = Collections.unmodifiableMap(m);
    boolean changed = !known || !next.equals(devices);
    devices = next;
    known = true;
    if (changed) {
      listeners.forEach(l -> l.accept(next));
    }
  }

  /** The current NPUs by device name, ordered by phy ID. */
  public Map<String, Npu> devices() {
    return devices;
  }

  /**
   * The NPU published under {@code deviceName}: {@code npu-3}, or {@code npu-3-soft} (the same
   * chip's soft-share device, {@link NpuDeviceNames#soft}).
   */
  public Optional<Npu> find(String deviceName) {
    Npu n = devices.get(deviceName);
    if (n == null && NpuDeviceNames.isSoft(deviceName)) {
      n = devices.get(NpuDeviceNames.of(NpuDeviceNames.phyIdOf(deviceName).getAsInt()));
    }
    return Optional.ofNullable(n);
  }

  /** Whether discovery has reported at least once (an empty map before that means "not known"). */
  public boolean known() {
    return known;
  }

  /** Adds a listener for changes. */
  public void addListener(Consumer<Map<String, Npu>> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }
}
