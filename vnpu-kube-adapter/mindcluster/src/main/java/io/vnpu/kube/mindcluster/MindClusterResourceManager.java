package io.vnpu.kube.mindcluster;

import io.vnpu.kube.mindcluster.alloc.ContainerAllocator;
import io.vnpu.kube.mindcluster.devices.AdvertisedDevice;
import io.vnpu.kube.mindcluster.devices.ChipInventory;
import io.vnpu.kube.mindcluster.devices.DeviceCatalog;
import io.vnpu.kube.mindcluster.devices.NodeChips;
import io.vnpu.kube.mindcluster.volcano.KubeletDeviceMap;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.resource.PluginDevice;
import io.vnpu.kube.resource.ResourceManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One MindCluster device type as a {@link ResourceManager}: the gRPC plugin for {@code
 * huawei.com/<type>} (spec section 3.3). Devices and their health come from the shared {@link
 * ChipInventory} through the {@link DeviceCatalog}; where Volcano chose other chips than the
 * kubelet's IDs, each kubelet ID reports the health of its real chip. GetPreferredAllocation is not
 * offered (as upstream).
 */
public final class MindClusterResourceManager implements ResourceManager {
  private final String resourceName;
  private final ChipInventory inventory;
  private final DeviceCatalog catalog;
  private final KubeletDeviceMap kubeletMap;
  private final ContainerAllocator allocator;

  public MindClusterResourceManager(
      String resourceName,
      ChipInventory inventory,
      DeviceCatalog catalog,
      KubeletDeviceMap kubeletMap,
      ContainerAllocator allocator) {
    this.resourceName = Objects.requireNonNull(resourceName, "resourceName");
    this.inventory = Objects.requireNonNull(inventory, "inventory");
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.kubeletMap = Objects.requireNonNull(kubeletMap, "kubeletMap");
    this.allocator = Objects.requireNonNull(allocator, "allocator");
  }

  @Override
  public String resourceName() {
    return resourceName;
  }

  @Override
  public List<PluginDevice> devices() {
    NodeChips snapshot = inventory.current();
    List<AdvertisedDevice> devices = catalog.devices(snapshot, resourceName);
    Map<String, AdvertisedDevice> byId =
        devices.stream().collect(Collectors.toMap(AdvertisedDevice::id, Function.identity()));
    List<PluginDevice> out = new ArrayList<>(devices.size());
    for (AdvertisedDevice d : devices) {
      // the real chip Volcano chose: an advertised device (whole chips), or a chip whose share
      // copies the kubelet holds under other chips' IDs (soft sharing)
      boolean healthy =
          kubeletMap
              .realOf(d.id())
              .map(
                  real ->
                      Optional.ofNullable(byId.get(real))
                          .map(AdvertisedDevice::healthy)
                          .or(() -> snapshot.byName(real).map(c -> c.healthy()))
                          .orElse(d.healthy()))
              .orElse(d.healthy());
      out.add(new PluginDevice(d.id(), healthy, d.chip().numaNodes()));
    }
    return out;
  }

  @Override
  public AutoCloseable watch(Runnable onChange) {
    return inventory.watch(onChange);
  }

  @Override
  public ContainerAllocation allocate(List<String> deviceIds) throws AllocationException {
    return allocator.allocate(resourceName, deviceIds);
  }

  @Override
  public boolean preferredAllocationAvailable() {
    return false;
  }

  @Override
  public List<String> preferredAllocation(
      List<String> available, List<String> mustInclude, int size) {
    throw new UnsupportedOperationException("not support");
  }

  /** The advertised device with this ID, if any. */
  public Optional<AdvertisedDevice> device(String id) {
    return catalog.devices(inventory.current(), resourceName).stream()
        .filter(d -> d.id().equals(id))
        .findFirst();
  }
}
