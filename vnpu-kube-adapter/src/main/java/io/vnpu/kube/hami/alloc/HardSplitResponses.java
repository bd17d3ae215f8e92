package io.vnpu.kube.hami.alloc;

import io.vnpu.api.model.Npu;
import io.vnpu.kube.hami.codec.ContainerDevice;
import io.vnpu.kube.hami.codec.RuntimeInfo;
import io.vnpu.kube.hami.devices.NodeDevices;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The upstream whole-card / hard-split response (protocol spec section 4.2): {@code
 * ASCEND_VISIBLE_DEVICES} = the devices' phy IDs in annotation order and, when any device has a
 * template, {@code ASCEND_VNPU_SPECS} = the first template. No mounts, no device nodes. Pure.
 */
public final class HardSplitResponses {
  private HardSplitResponses() {}

  /**
   * @param runtimeInfoKey {@code huawei.com/<cw>}, named in the error for an empty device list
   * @throws AllocationException {@code annotation <key> value invalid} for no devices,
   *     {@code unknown uuid: <UUID>} for a device this node does not have
   */
  public static ContainerAllocation build(List<ContainerDevice> devices, Map<String, RuntimeInfo> info,
      NodeDevices npus, String runtimeInfoKey) throws AllocationException {
    List<Npu> resolved = resolve(devices, npus, runtimeInfoKey);
    Map<String, String> envs = new LinkedHashMap<>();
    envs.put(AscendEnv.VISIBLE_DEVICES, phyIds(resolved));
    firstTemplate(devices, info).ifPresent(t -> envs.put(AscendEnv.VNPU_SPECS, t));
    return new ContainerAllocation(envs, List.of(), List.of(), Map.of(), List.of());
  }

  /** The first non-empty {@code temp} of the devices, in annotation order. */
  public static Optional<String> firstTemplate(List<ContainerDevice> devices, Map<String, RuntimeInfo> info) {
    for (ContainerDevice d : devices) {
      RuntimeInfo ri = info.get(d.uuid());
      if (ri != null && !ri.temp().isEmpty()) return Optional.of(ri.temp());
    }
    return Optional.empty();
  }

  /** Maps each device to this node's NPU, in order. */
  static List<Npu> resolve(List<ContainerDevice> devices, NodeDevices npus, String runtimeInfoKey)
      throws AllocationException {
    if (devices.isEmpty()) {
      throw new AllocationException("annotation " + runtimeInfoKey + " value invalid: no devices for the container");
    }
    List<Npu> out = new ArrayList<>(devices.size());
    for (ContainerDevice d : devices) {
      out.add(npus.byUuid(d.uuid()).orElseThrow(() -> new AllocationException("unknown uuid: " + d.uuid())));
    }
    return out;
  }

  static String phyIds(List<Npu> npus) {
    return npus.stream().map(n -> Integer.toString(n.phyId())).collect(Collectors.joining(","));
  }
}
