package io.vnpu.kube.hami;

import io.vnpu.kube.hami.bind.HamiAllocator;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.hami.config.VDeviceCount;
import io.vnpu.kube.hami.devices.DeviceInventory;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.resource.PluginDevice;
import io.vnpu.kube.resource.ResourceManager;
import java.util.List;
import java.util.Objects;

/**
 * The HAMi Ascend {@link ResourceManager}: advertises {@code VDeviceCount} fake devices per NPU
 * (protocol spec section 1.3) with live health, and serves Allocate from the HAMi scheduler's pod
 * annotations.
 */
public final class HamiResourceManager implements ResourceManager {
  private final HamiChipSettings chip;
  private final int vDeviceCount;
  private final DeviceInventory inventory;
  private final HamiAllocator allocator;

  public HamiResourceManager(HamiChipSettings chip, HamiNodeSettings node, DeviceInventory inventory,
      HamiAllocator allocator) {
    this.chip = Objects.requireNonNull(chip, "chip");
    this.vDeviceCount = VDeviceCount.of(chip, Objects.requireNonNull(node, "node"));
    this.inventory = Objects.requireNonNull(inventory, "inventory");
    this.allocator = Objects.requireNonNull(allocator, "allocator");
  }

  @Override
  public String resourceName() {
    return chip.resourceName();
  }

  @Override
  public List<PluginDevice> devices() {
    return inventory.current().pluginDevices(vDeviceCount);
  }

  @Override
  public AutoCloseable watch(Runnable onChange) {
    return inventory.watch(onChange);
  }

  @Override
  public ContainerAllocation allocate(List<String> deviceIds) throws AllocationException {
    return allocator.allocate(deviceIds);
  }

  @Override
  public List<String> preferredAllocation(List<String> available, List<String> mustInclude, int size) {
    return SpreadPreferredAllocation.choose(available, mustInclude, size);
  }
}
