package io.vnpu.kube.mindcluster.alloc;

import io.vnpu.api.slice.DeviceNode;
import io.vnpu.kube.mindcluster.devices.CardType;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * One container's Allocate answer (spec section 3.9). With the Ascend Docker Runtime only env:
 * {@code ASCEND_VISIBLE_DEVICES} (phy IDs ascending, or the vNPU ID), {@code
 * ASCEND_RUNTIME_OPTIONS} ({@code ""} or {@code VIRTUAL}) and {@code ASCEND_ALLOW_LINK=True} on
 * 310B; without it the device nodes of {@link DeviceNodes}, checked to exist. {@code extraEnv}
 * (dynamic-vNPU rank env) is added in both cases.
 */
public final class ContainerResponses {
  private final boolean useAscendDocker;
  private final DeviceNodes nodes;

  public ContainerResponses(boolean useAscendDocker, DeviceNodes nodes) {
    this.useAscendDocker = useAscendDocker;
    this.nodes = Objects.requireNonNull(nodes, "nodes");
  }

  /**
   * Whole chips.
   *
   * @throws AllocationException without the runtime, when a device node is missing
   */
  public ContainerAllocation chips(
      CardType type, List<Integer> phyIds, Map<String, String> extraEnv)
      throws AllocationException {
    List<Integer> sorted = phyIds.stream().distinct().sorted().toList();
    Map<String, String> env = new LinkedHashMap<>();
    List<DeviceNode> devices = List.of();
    if (useAscendDocker) {
      env.put(
          RuntimeEnv.VISIBLE_DEVICES,
          sorted.stream().map(String::valueOf).collect(Collectors.joining(",")));
      env.put(RuntimeEnv.RUNTIME_OPTIONS, "");
      if (type == CardType.ASCEND310B) env.put(RuntimeEnv.ALLOW_LINK, "True");
    } else {
      devices = nodes.forChips(type, sorted);
    }
    env.putAll(extraEnv);
    return new ContainerAllocation(env, List.of(), devices, Map.of(), List.of());
  }

  /**
   * One vNPU.
   *
   * @throws AllocationException without the runtime, when a device node is missing
   */
  public ContainerAllocation vnpu(CardType type, int vnpuId, Map<String, String> extraEnv)
      throws AllocationException {
    Map<String, String> env = new LinkedHashMap<>();
    List<DeviceNode> devices = List.of();
    if (useAscendDocker) {
      env.put(RuntimeEnv.VISIBLE_DEVICES, Integer.toString(vnpuId));
      env.put(RuntimeEnv.RUNTIME_OPTIONS, RuntimeEnv.VIRTUAL);
    } else {
      devices = nodes.forVnpu(type, vnpuId);
    }
    env.putAll(extraEnv);
    return new ContainerAllocation(env, List.of(), devices, Map.of(), List.of());
  }
}
