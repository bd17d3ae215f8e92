package io.vnpu.kube.mindcluster.volcano;

import io.vnpu.api.model.SuperPodInfo;
import io.vnpu.kube.json.JsonMappers;
import io.vnpu.kube.mindcluster.devices.ChipState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The pod's HCCL rank-table annotation {@code
 * ascend.kubectl.kubernetes.io/ascend-910-configuration} (spec section 3.11): {@code
 * {"pod_name","server_id","host_ip","super_pod_id","devices":[{"device_id",
 * "device_ip","super_device_id"}],"rack_id","server_index","server_ip"}}, fields in that order.
 * {@code device_ip} is the chip's RoCE address ({@code dcmi_get_device_ip}: IPv4, else a
 * non-link-local IPv6), {@code -1} when the chip has none or it cannot be read, as upstream writes.
 * The types are upstream's, which Ascend Operator decodes into {@code int32} and string fields:
 * {@code super_pod_id} and {@code rack_id} are JSON numbers, {@code server_index} and {@code
 * super_device_id} strings. {@code super_pod_id} / {@code server_index} are the node's super-pod
 * membership ({@code dcmi_spod_info}: -1 not in a super-pod, -2 unknown, e.g. on 910B), {@code
 * super_device_id} the chip's super device ID ({@code sdid}, {@code 0} when unknown); {@code
 * rack_id} is {@code -1} (racks are an A5 notion).
 */
public final class RankTable {
  private static final JsonMapper JSON = JsonMappers.compact();

  /** {@code device_ip} of a chip without a RoCE address. */
  public static final String NO_DEVICE_IP = "-1";

  /** {@code rack_id} outside A5. */
  static final int NO_RACK = -1;

  private RankTable() {}

  /**
   * @param podName the pod's name
   * @param podUid the pod's UID ({@code server_id})
   * @param hostIp env {@code HOST_IP} of the device plugin ({@code host_ip}, {@code server_ip})
   * @param chips the pod's chips, in the order handed out
   * @param node the node's super-pod membership ({@link
   *     io.vnpu.kube.mindcluster.devices.NodeChips#superPod})
   */
  public static String of(
      String podName, String podUid, String hostIp, List<ChipState> chips, SuperPodInfo node) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("pod_name", podName);
    m.put("server_id", podUid);
    m.put("host_ip", hostIp);
    m.put("super_pod_id", node.superPodId());
    m.put(
        "devices",
        chips.stream()
            .map(
                c -> {
                  Map<String, String> d = new LinkedHashMap<>();
                  d.put("device_id", Integer.toString(c.npu().phyId()));
                  d.put("device_ip", c.roceIp().orElse(NO_DEVICE_IP));
                  d.put("super_device_id", Long.toString(c.superPod().superDeviceId()));
                  return d;
                })
            .toList());
    m.put("rack_id", NO_RACK);
    m.put("server_index", Integer.toString(node.serverIndex()));
    m.put("server_ip", hostIp);
    try {
      return JSON.writeValueAsString(m);
    } catch (JacksonException e) {
      throw new IllegalStateException("rank table of pod " + podName + " not serialisable", e);
    }
  }
}
