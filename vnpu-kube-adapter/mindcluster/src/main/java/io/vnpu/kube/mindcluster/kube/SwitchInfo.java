package io.vnpu.kube.mindcluster.kube;

import io.vnpu.api.health.SwitchFault;
import io.vnpu.kube.json.JsonMappers;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code SwitchInfoCfg} value of the device-info ConfigMap on A3 servers: the node's LingQu
 * switch faults as MindCluster reports them — {@code {"FaultCode":[{EventType, AssembledFaultCode,
 * PeerPortDevice, PeerPortId, SwitchChipId, SwitchPortId, Severity, Assertion, AlarmRaisedTime}],
 * "FaultLevel", "UpdateTime", "NodeStatus",
 * "FaultTimeAndLevelMap":{"<code>_<chip>_<port>":{"fault_time","fault_level"}}, "CheckCode"}}.
 * {@code FaultLevel} is the most severe level of the faults ({@code NotHandle}, {@code
 * SubHealthFault}, {@code RestartRequest}, {@code PreSeparate}, {@code Separate}) graded by {@link
 * SwitchFaultLevels}; {@code NodeStatus} is {@code Healthy} (NotHandle), {@code SubHealthy}
 * (SubHealthFault) or {@code UnHealthy}; {@code CheckCode} is the SHA-256 hex of the JSON without
 * it.
 */
public final class SwitchInfo {
  private static final JsonMapper JSON = JsonMappers.compact();

  private SwitchInfo() {}

  /** The value for these faults (only those with assertion 1 count) at {@code now}. */
  public static String cfg(List<SwitchFault> faults, SwitchFaultLevels levels, Instant now) {
    List<Map<String, Object>> codes = new ArrayList<>();
    Map<String, Object> timeAndLevel = new TreeMap<>();
    SwitchFaultLevels.Level worst = SwitchFaultLevels.Level.NOT_HANDLE;
    Set<String> seen = new java.util.HashSet<>();
    for (SwitchFault f : faults) {
      if (!f.occurred() || !seen.add(f.key())) continue;
      SwitchFaultLevels.Level level = levels.levelOf(f);
      if (level.compareTo(worst) > 0) worst = level;
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("EventType", f.eventType());
      m.put("AssembledFaultCode", f.assembledCode());
      m.put("PeerPortDevice", f.peerDevice());
      m.put("PeerPortId", f.peerPort());
      m.put("SwitchChipId", f.chipId());
      m.put("SwitchPortId", f.portId());
      m.put("Severity", f.severity());
      m.put("Assertion", f.assertion());
      m.put("AlarmRaisedTime", f.raisedAt().getEpochSecond());
      codes.add(m);
      Map<String, Object> tl = new LinkedHashMap<>();
      tl.put("fault_time", f.raisedAt().toEpochMilli());
      tl.put("fault_level", level.term());
      timeAndLevel.put(f.key(), tl);
    }
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("FaultCode", codes);
    info.put("FaultLevel", worst.term());
    info.put("UpdateTime", now.getEpochSecond());
    info.put("NodeStatus", worst.nodeStatus());
    info.put("FaultTimeAndLevelMap", timeAndLevel);
    String body = write(info);
    info.put("CheckCode", CheckCode.of(body));
    return write(info);
  }

  private static String write(Object o) {
    try {
      return JSON.writeValueAsString(o);
    } catch (JacksonException e) {
      throw new IllegalStateException("SwitchInfoCfg not serialisable", e);
    }
  }
}
