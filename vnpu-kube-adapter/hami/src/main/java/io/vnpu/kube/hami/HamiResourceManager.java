package io.vnpu.kube.hami;

import io.vnpu.kube.hami.bind.HamiAllocator;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.hami.config.VDeviceCount;
import io.vnpu.kube.hami.devices.DeviceInventory;
import io.vnpu.kube.hami.devices.FakeDeviceId;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.resource.PluginDevice;
import io.vnpu.kube.resource.PreferredAllocationPolicy;
import io.vnpu.kube.resource.ResourceManager;
import java.util.List;
import java.util.Objects;

/**
 * The HAMi Ascend {@link ResourceManager}: advertises {@code VDeviceCount} fake devices per NPU
 * (protocol spec section 1.3) with live health, and serves Allocate from the HAMi scheduler's pod
 * annotations. GetPreferredAllocation prefers a replica of each NPU HAMi's scheduler chose for the
 * container ({@link HamiAllocator#scheduledUuids}), so the kubelet's view of the node
 * (pod-resources, its free replicas) names the chips the container really gets; the rest, or
 * everything when no pod waits, spreads replicas over NPUs and, on 910 boards with HCCS (every
 * {@code Ascend910*} type but 910C), keeps a container inside one group of four.
 */
public final class HamiResourceManager implements ResourceManager {
  private final HamiChipSettings chip;
  private final int vDeviceCount;
  private final DeviceInventory inventory;
  private final HamiAllocator allocator;
  private final PreferredAllocationPolicy preferred;

  public HamiResourceManager(
      HamiChipSettings chip,
      HamiNodeSettings node,
      DeviceInventory inventory,
      HamiAllocator allocator) {
    this.chip = Objects.requireNonNull(chip, "chip");
    this.vDeviceCount = VDeviceCount.of(chip, Objects.requireNonNull(node, "node"));
    this.inventory = Objects.requireNonNull(inventory, "inventory");
    this.allocator = Objects.requireNonNull(allocator, "allocator");
    String cw = chip.commonWord();
    this.preferred =
        cw.startsWith("Ascend910") && !cw.equals("Ascend910C")
            ? new PreferredAllocationPolicy(HamiResourceManager::npuOf, this::hccsGroupOf)
            : PreferredAllocationPolicy.spreadOnly(HamiResourceManager::npuOf);
  }

  private static Object npuOf(String deviceId) {
    return FakeDeviceId.uuidOf(deviceId).orElse(deviceId);
  }

  /** Group of four by phy ID; an ID of an NPU no longer listed forms a group of its own. */
  private Object hccsGroupOf(String deviceId) {
    String uuid = FakeDeviceId.uuidOf(deviceId).orElse(deviceId);
    return inventory
        .current()
        .byUuid(uuid)
        .<Object>map(n -> PreferredAllocationPolicy.hccsGroupOfFour(n.phyId()))
        .orElse("unknown " + uuid);
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
  public List<String> preferredAllocation(
      List<String> available, List<String> mustInclude, int size) {
    List<String> scheduled = size > mustInclude.size() ? allocator.scheduledUuids(size) : List.of();
    if (scheduled.isEmpty()) return preferred.choose(available, mustInclude, size);
    // one replica per scheduled NPU entry, must-include replicas counting toward their NPU
    java.util.Map<String, Integer> wanted = new java.util.HashMap<>();
    scheduled.forEach(u -> wanted.merge(u, 1, Integer::sum));
    for (String id : mustInclude)
      wanted.computeIfPresent(npuOf(id).toString(), (u, n) -> n > 1 ? n - 1 : null);
    java.util.LinkedHashSet<String> answer = new java.util.LinkedHashSet<>(mustInclude);
    for (String id : available) {
      if (answer.size() >= size) break;
      if (answer.contains(id)) continue;
      String uuid = npuOf(id).toString();
      Integer n = wanted.get(uuid);
      if (n == null) continue;
      answer.add(id);
      wanted.compute(uuid, (u, left) -> left > 1 ? left - 1 : null);
    }
    return preferred.choose(available, List.copyOf(answer), size);
  }
}
