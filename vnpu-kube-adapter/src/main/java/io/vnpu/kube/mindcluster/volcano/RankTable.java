package io.vnpu.kube.mindcluster.volcano;

import io.vnpu.kube.json.JsonMappers;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The pod's HCCL rank-table annotation {@code ascend.kubectl.kubernetes.io/ascend-910-configuration}
 * (spec section 3.11): {@code {"pod_name","server_id","host_ip","super_pod_id","devices":[{"device_id",
 * "device_ip","super_device_id"}],"rack_id","server_index","server_ip"}}, fields in that order.
 * The device IP is the chip's RoCE address; the {@code DeviceManager} port does not report it, so
 * it is {@code -1} as upstream writes for a chip without one. Not a super-pod: {@code -1} ids.
 */
public final class RankTable {
  private static final JsonMapper JSON = JsonMappers.compact();

  private RankTable() {}

  /**
   * @param podName  the pod's name
   * @param podUid   the pod's UID ({@code server_id})
   * @param hostIp   env {@code HOST_IP} of the device plugin ({@code host_ip}, {@code server_ip})
   * @param phyIds   phy IDs of the pod's chips, in the order handed out
   */
  public static String of(String podName, String podUid, String hostIp, List<Integer> phyIds) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("pod_name", podName);
    m.put("server_id", podUid);
    m.put("host_ip", hostIp);
    m.put("super_pod_id", "-1");
    m.put("devices", phyIds.stream().map(p -> {
      Map<String, String> d = new LinkedHashMap<>();
      d.put("device_id", Integer.toString(p));
      d.put("device_ip", "-1");
      d.put("super_device_id", "-1");
      return d;
    }).toList());
    m.put("rack_id", "-1");
    m.put("server_index", "-1");
    m.put("server_ip", hostIp);
    try {
      return JSON.writeValueAsString(m);
    } catch (JacksonException e) {
      throw new IllegalStateException("rank table of pod " + podName + " not serialisable", e);
    }
  }
}
