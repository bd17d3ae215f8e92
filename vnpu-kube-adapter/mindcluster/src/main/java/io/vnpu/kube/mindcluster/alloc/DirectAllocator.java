package io.vnpu.kube.mindcluster.alloc;

import io.vnpu.kube.mindcluster.devices.AdvertisedDevice;
import io.vnpu.kube.mindcluster.devices.DeviceCatalog;
import io.vnpu.kube.mindcluster.devices.NodeChips;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Allocate without Volcano ({@code -volcanoType=false}), and of static vNPUs in any mode: the
 * kubelet's device IDs are the devices (spec section 3.8). Chips answer with their phy IDs (share
 * copies of one chip collapse to the chip); a static vNPU with its vNPU ID, one per container.
 */
public final class DirectAllocator implements ContainerAllocator {
  private final Supplier<NodeChips> chips;
  private final DeviceCatalog catalog;
  private final ContainerResponses responses;

  public DirectAllocator(
      Supplier<NodeChips> chips, DeviceCatalog catalog, ContainerResponses responses) {
    this.chips = Objects.requireNonNull(chips, "chips");
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.responses = Objects.requireNonNull(responses, "responses");
  }

  @Override
  public ContainerAllocation allocate(String resourceName, List<String> deviceIds)
      throws AllocationException {
    List<AdvertisedDevice> devices = resolve(catalog, chips.get(), resourceName, deviceIds);
    return respond(responses, devices, Map.of());
  }

  /**
   * The advertised devices of {@code resourceName} with these IDs, in request order.
   *
   * @throws AllocationException for an empty request or an ID this resource does not advertise
   */
  public static List<AdvertisedDevice> resolve(
      DeviceCatalog catalog, NodeChips snapshot, String resourceName, List<String> deviceIds)
      throws AllocationException {
    if (deviceIds.isEmpty()) {
      throw new AllocationException("no device IDs in the container request for " + resourceName);
    }
    Map<String, AdvertisedDevice> byId =
        catalog.devices(snapshot, resourceName).stream()
            .collect(Collectors.toMap(AdvertisedDevice::id, Function.identity()));
    List<AdvertisedDevice> out = new ArrayList<>(deviceIds.size());
    for (String id : deviceIds) {
      AdvertisedDevice d = byId.get(id);
      if (d == null) {
        throw new AllocationException(
            "device " + id + " is not a device of " + resourceName + " on this node");
      }
      out.add(d);
    }
    return out;
  }

  /**
   * The answer for resolved devices.
   *
   * @throws AllocationException for more than one vNPU in one container, or a missing device node
   */
  public static ContainerAllocation respond(
      ContainerResponses responses, List<AdvertisedDevice> devices, Map<String, String> extraEnv)
      throws AllocationException {
    if (devices.get(0).vnpu().isPresent()) {
      if (devices.size() != 1) {
        throw new AllocationException(
            "a container may use one vNPU, got "
                + devices.size()
                + ": "
                + devices.stream().map(AdvertisedDevice::id).collect(Collectors.joining(",")));
      }
      AdvertisedDevice d = devices.get(0);
      return responses.vnpu(d.chip().type(), d.vnpu().get().vnpuId(), extraEnv);
    }
    return responses.chips(
        devices.get(0).chip().type(),
        devices.stream().map(d -> d.chip().npu().phyId()).toList(),
        extraEnv);
  }
}
