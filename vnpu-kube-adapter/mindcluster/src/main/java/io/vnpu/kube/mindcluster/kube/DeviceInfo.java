package io.vnpu.kube.mindcluster.kube;

import io.vnpu.api.fault.FaultCodeTable;
import io.vnpu.api.health.ActiveFault;
import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.FaultLevel;
import io.vnpu.kube.json.JsonMappers;
import io.vnpu.kube.mindcluster.devices.CardType;
import io.vnpu.kube.mindcluster.devices.ChipState;
import io.vnpu.kube.mindcluster.devices.MindClusterResources;
import io.vnpu.kube.mindcluster.devices.NodeChips;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code DeviceInfoCfg} value of the device-info ConfigMap (spec section 3.6), byte for byte as
 * MindCluster's Go plugin marshals it: {@code {"DeviceInfo":{"DeviceList":{…},"UpdateTime":<unix
 * s>},"SuperPodID":<int>,"ServerIndex":<int>,"CheckCode":"<sha256 hex of the DeviceInfo JSON>"}},
 * DeviceList keys sorted (a Go map), every value a string (the {@code -Fault} list is a JSON array
 * inside that string). Pure.
 *
 * <p>DeviceList of a family with name {@code N} ({@code Ascend910}, {@code Ascend310P}, {@code
 * npu}): {@code huawei.com/N} free healthy chips (healthy and not held by a pod), {@code
 * -Unhealthy}, {@code -Fault}; the 910 family and 950 add {@code -NetworkUnhealthy} and {@code
 * -Recovering}. Chip lists are comma-joined in phy-ID order; chips are named as advertised ({@code
 * Ascend310P-VPro-0} with 310P mixed insertion).
 */
public final class DeviceInfo {
  private static final JsonMapper JSON = JsonMappers.compact();

  private DeviceInfo() {}

  /** The DeviceList map for the chips, keys sorted. */
  public static Map<String, String> deviceList(NodeChips chips, Set<String> held) {
    Map<String, String> list = new TreeMap<>();
    Map<CardType, List<ChipState>> byFamily = new LinkedHashMap<>();
    for (ChipState c : chips.chips())
      byFamily.computeIfAbsent(c.type(), k -> new ArrayList<>()).add(c);
    for (Map.Entry<CardType, List<ChipState>> e : byFamily.entrySet()) {
      String key = MindClusterResources.PREFIX + e.getKey().deviceName();
      List<ChipState> family =
          e.getValue().stream().sorted(Comparator.comparingInt(c -> c.npu().phyId())).toList();
      // only chips of the family's own device type are listed free: with 310P mixed insertion
      // (Ascend310P-VPro-0, ...) the list is empty, as upstream's (Volcano does not run there)
      list.put(
          key,
          names(
              family,
              c ->
                  c.deviceType().equals(c.type().deviceName())
                      && c.healthy()
                      && !held.contains(c.name())));
      list.put(key + "-Unhealthy", names(family, c -> !c.healthy()));
      if (e.getKey().rankTable()) {
        list.put(key + "-NetworkUnhealthy", names(family, c -> !c.health().networkHealthy()));
        list.put(key + "-Recovering", names(family, c -> c.health().resetting()));
      }
      list.put(key + "-Fault", faults(family));
    }
    return list;
  }

  private static String names(List<ChipState> chips, Predicate<ChipState> which) {
    return chips.stream().filter(which).map(ChipState::name).collect(Collectors.joining(","));
  }

  /**
   * The {@code -Fault} JSON array: per chip one chip entry and one network entry, where it has such
   * faults.
   */
  static String faults(List<ChipState> chips) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (ChipState c : chips) {
      ChipHealth h = c.health();
      List<ActiveFault> chipFaults =
          h.faults().stream().filter(f -> !FaultCodeTable.isNetwork(f.code())).toList();
      List<ActiveFault> netFaults =
          h.faults().stream().filter(f -> FaultCodeTable.isNetwork(f.code())).toList();
      if (!chipFaults.isEmpty()) out.add(entry("CardUnhealthy", c.name(), h.level(), chipFaults));
      if (!netFaults.isEmpty())
        out.add(entry("CardNetworkUnhealthy", c.name(), h.networkLevel(), netFaults));
    }
    return write(out);
  }

  private static Map<String, Object> entry(
      String type, String npuName, FaultLevel level, List<ActiveFault> faults) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("fault_type", type);
    m.put("npu_name", npuName);
    m.put("large_model_fault_level", level.term());
    m.put("fault_level", level.term());
    m.put("fault_handling", level.term());
    m.put("fault_code", faults.stream().map(f -> f.code().hex()).collect(Collectors.joining(",")));
    Map<String, Object> times = new TreeMap<>();
    for (ActiveFault f : faults) {
      Map<String, Object> t = new LinkedHashMap<>();
      t.put("fault_time", f.since().toEpochMilli());
      t.put("fault_level", f.level().term());
      times.put(f.code().hex(), t);
    }
    m.put("fault_time_and_level_map", times);
    return m;
  }

  /** {@code {"DeviceList":{…},"UpdateTime":<s>}}. */
  public static String deviceInfoJson(Map<String, String> deviceList, Instant updateTime) {
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("DeviceList", new TreeMap<>(deviceList));
    info.put("UpdateTime", updateTime.getEpochSecond());
    return write(info);
  }

  /** The whole {@code DeviceInfoCfg} value. */
  public static String cfg(
      Map<String, String> deviceList, Instant updateTime, int superPodId, int serverIndex) {
    String info = deviceInfoJson(deviceList, updateTime);
    // the DeviceInfo object is embedded as it was hashed, so CheckCode verifies the bytes that are
    // there
    return "{\"DeviceInfo\":"
        + info
        + ",\"SuperPodID\":"
        + superPodId
        + ",\"ServerIndex\":"
        + serverIndex
        + ",\"CheckCode\":\""
        + CheckCode.of(info)
        + "\"}";
  }

  private static String write(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JacksonException e) {
      throw new IllegalStateException("device info not serialisable", e);
    }
  }
}
