package io.vnpu.kube.hami.config;

/**
 * How many tasks may share one NPU (protocol spec section 6.2): the node's {@code vDeviceCount}
 * when positive, else {@code floor(memoryAllocatable / smallest template memory)}, else 1 when the
 * chip has no templates.
 */
public final class VDeviceCount {
  private VDeviceCount() {}

  public static int of(HamiChipSettings chip, HamiNodeSettings node) {
    if (node.vDeviceCount() > 0) return node.vDeviceCount();
    if (chip.templates().isEmpty()) return 1;
    long smallest = chip.templates().get(0).memoryMib();
    return (int) Math.max(1, chip.memoryAllocatableMib() / smallest);
  }
}
