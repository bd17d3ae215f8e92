package io.vnpu.kube.hami.alloc;

import io.vnpu.api.model.Npu;
import io.vnpu.api.slice.ContainerEdits;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.SliceDecision;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SlicePlan;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.api.slice.VnpuToCreate;
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
 * Whole-card / hard-split slice plans, pure. The upstream response (protocol spec section 4.2):
 * {@code ASCEND_VISIBLE_DEVICES} = the devices' phy IDs in annotation order and, when any device
 * has a template, {@code ASCEND_VNPU_SPECS} = the first template; no mounts, no device nodes. With
 * {@link HardSplitStrategy#PLUGIN_CREATES_VNPU} the node creates one vNPU per device and publishes
 * their IDs in {@code ASCEND_VISIBLE_DEVICES} with {@code ASCEND_RUNTIME_OPTIONS=VIRTUAL}.
 */
public final class HardSplitResponses {
  private HardSplitResponses() {}

  /**
   * The upstream plan: the runtime creates the vNPU (if any), the node only edits the container.
   * The decision gives every device the first template (what the runtime creates) or the whole NPU.
   *
   * @param runtimeInfoKey {@code huawei.com/<cw>}, named in the error for an empty device list
   * @throws AllocationException {@code annotation <key> value invalid} for no devices, {@code
   *     unknown uuid: <UUID>} for a device this node does not have
   */
  public static SlicePlan plan(
      List<ContainerDevice> devices,
      Map<String, RuntimeInfo> info,
      NodeDevices npus,
      String runtimeInfoKey)
      throws AllocationException {
    List<Npu> resolved = resolve(devices, npus, runtimeInfoKey);
    Optional<String> template = firstTemplate(devices, info);
    SliceShare share =
        template.<SliceShare>map(SliceShare.HardTemplate::new).orElse(new SliceShare.Whole());
    SliceDecision decision =
        new SliceDecision(
            resolved.stream().map(n -> new SliceDevice(NpuRef.of(n), share)).toList());
    Map<String, String> envs = new LinkedHashMap<>();
    envs.put(AscendEnv.VISIBLE_DEVICES, phyIds(resolved));
    template.ifPresent(t -> envs.put(AscendEnv.VNPU_SPECS, t));
    return SlicePlan.editsOnly(decision, ContainerEdits.ofEnv(envs));
  }

  /** The upstream response, {@link #plan}'s edits. */
  public static ContainerAllocation build(
      List<ContainerDevice> devices,
      Map<String, RuntimeInfo> info,
      NodeDevices npus,
      String runtimeInfoKey)
      throws AllocationException {
    return ContainerAllocation.of(
        plan(devices, info, npus, runtimeInfoKey).edits(), Map.of(), List.of());
  }

  /**
   * The plan when the plugin creates the vNPUs: one per device from its own template.
   *
   * @throws AllocationException as {@link #plan}, and when a device has no template
   */
  public static SlicePlan pluginCreatesPlan(
      List<ContainerDevice> devices,
      Map<String, RuntimeInfo> info,
      NodeDevices npus,
      String runtimeInfoKey)
      throws AllocationException {
    List<Npu> resolved = resolve(devices, npus, runtimeInfoKey);
    List<SliceDevice> slice = new ArrayList<>(devices.size());
    List<VnpuToCreate> vnpus = new ArrayList<>(devices.size());
    for (int i = 0; i < devices.size(); i++) {
      ContainerDevice d = devices.get(i);
      RuntimeInfo ri = info.get(d.uuid());
      String template = ri == null ? "" : ri.temp();
      if (template.isEmpty()) {
        throw new AllocationException(
            "annotation "
                + runtimeInfoKey
                + ": device "
                + d.uuid()
                + " has no temp while another device of the container has one");
      }
      Npu npu = resolved.get(i);
      slice.add(new SliceDevice(NpuRef.of(npu), new SliceShare.HardTemplate(template)));
      vnpus.add(new VnpuToCreate(NpuRef.of(npu), npu.logicId(), template));
    }
    Map<String, String> envs = new LinkedHashMap<>();
    envs.put(AscendEnv.RUNTIME_OPTIONS, "VIRTUAL");
    return SlicePlan.editsOnly(new SliceDecision(slice), ContainerEdits.ofEnv(envs))
        .withVnpus(vnpus, AscendEnv.VISIBLE_DEVICES);
  }

  /** The first non-empty {@code temp} of the devices, in annotation order. */
  public static Optional<String> firstTemplate(
      List<ContainerDevice> devices, Map<String, RuntimeInfo> info) {
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
      throw new AllocationException(
          "annotation " + runtimeInfoKey + " value invalid: no devices for the container");
    }
    List<Npu> out = new ArrayList<>(devices.size());
    for (ContainerDevice d : devices) {
      Npu npu =
          npus.byUuid(d.uuid())
              .orElseThrow(() -> new AllocationException("unknown uuid: " + d.uuid()));
      if (out.contains(npu)) {
        throw new AllocationException(
            "annotation "
                + runtimeInfoKey
                + ": device "
                + d.uuid()
                + " is listed twice for the container");
      }
      out.add(npu);
    }
    return out;
  }

  static String phyIds(List<Npu> npus) {
    return npus.stream().map(n -> Integer.toString(n.phyId())).collect(Collectors.joining(","));
  }
}
