package io.vnpu.kube.mindcluster.kube;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.api.health.FaultUpgrade;
import io.vnpu.kube.json.JsonMappers;
import io.vnpu.kube.mindcluster.devices.ChipState;
import io.vnpu.kube.mindcluster.devices.NodeChips;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The device-info ConfigMap {@code kube-system/mindx-dl-deviceinfo-<node>} (label {@code
 * mx-consumer-cim: "true"}, spec section 3.6): keys {@value #DEVICE_INFO_CFG} (see {@link
 * DeviceInfo}), {@value #MANUALLY_SEPARATE_NPU}, {@value #UPGRADE_FAULT_REASON} and {@value
 * #DESCRIPTION}. Written when the content changed and otherwise every 5 minutes, never twice within
 * a second ({@link WriteLimiter}). {@value #MANUALLY_SEPARATE_NPU} belongs to the operator and the
 * fault engine: every write keeps the value found in the ConfigMap, and only {@link
 * #saveManuallySeparated} changes it. Thread-safe.
 */
public final class DeviceInfoConfigMap {
  private static final Logger LOG = LoggerFactory.getLogger(DeviceInfoConfigMap.class);
  private static final JsonMapper JSON = JsonMappers.compact();

  public static final String NAMESPACE = "kube-system";
  public static final String NAME_PREFIX = "mindx-dl-deviceinfo-";
  public static final String CONSUMER_LABEL = "mx-consumer-cim";
  public static final String DEVICE_INFO_CFG = "DeviceInfoCfg";
  public static final String MANUALLY_SEPARATE_NPU = "ManuallySeparateNPU";
  public static final String UPGRADE_FAULT_REASON = "UpgradeFaultReason";
  public static final String DESCRIPTION = "Description";

  /** A3/A5: the node's LingQu switch faults ({@link SwitchInfo}). */
  public static final String SWITCH_INFO_CFG = "SwitchInfoCfg";

  static final String DESCRIPTION_TEXT =
      "The free-chip list in DeviceInfoCfg is kept for compatibility;"
          + " volcano-scheduler maintains the available chips itself unless self-maintain-available-card=false.";

  private final KubernetesClient client;
  private final String name;
  private final Clock clock;
  private final WriteLimiter limiter;
  private String lastSwitchFaults;
  private java.time.Instant lastSwitchWrite = java.time.Instant.EPOCH;

  public DeviceInfoConfigMap(
      KubernetesClient client, String nodeName, Clock clock, WriteLimiter limiter) {
    this.client = Objects.requireNonNull(client, "client");
    this.name = NAME_PREFIX + Objects.requireNonNull(nodeName, "nodeName");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.limiter = Objects.requireNonNull(limiter, "limiter");
  }

  /**
   * Writes {@value #SWITCH_INFO_CFG} when the faults changed ({@code faultKeys}, e.g. the sorted
   * fault keys and levels) and otherwise every 5 minutes, keeping every other key.
   *
   * @return whether it was written
   * @throws KubernetesClientException when the API server fails (retried by the next call)
   */
  public synchronized boolean publishSwitchInfo(String cfg, String faultKeys) {
    java.time.Instant now = clock.instant();
    if (faultKeys.equals(lastSwitchFaults)
        && now.isBefore(lastSwitchWrite.plus(WriteLimiter.REFRESH))) return false;
    write(Map.of(SWITCH_INFO_CFG, cfg), Optional.empty());
    lastSwitchFaults = faultKeys;
    lastSwitchWrite = now;
    return true;
  }

  public String name() {
    return name;
  }

  /**
   * Writes the chips' state if due.
   *
   * @param held chips held by pods (not free)
   * @return whether it was written
   * @throws KubernetesClientException when the API server fails (retried by the next attempt)
   */
  public synchronized boolean publish(NodeChips chips, Set<String> held) {
    Map<String, String> deviceList = DeviceInfo.deviceList(chips, held);
    String upgrades = upgradeReasons(chips);
    String content = deviceList + "|" + upgrades;
    if (!limiter.due(content)) return false;
    Map<String, String> data = new LinkedHashMap<>();
    // SuperPodID / ServerIndex: the node's dcmi_spod_info (-1 not in a super-pod, -2 unknown)
    data.put(
        DEVICE_INFO_CFG,
        DeviceInfo.cfg(
            deviceList,
            clock.instant(),
            chips.superPod().superPodId(),
            chips.superPod().serverIndex()));
    data.put(UPGRADE_FAULT_REASON, upgrades);
    data.put(DESCRIPTION, DESCRIPTION_TEXT);
    write(data, Optional.empty());
    limiter.written(content);
    return true;
  }

  /**
   * The chip names in {@value #MANUALLY_SEPARATE_NPU}, as found (empty when the ConfigMap or the
   * key does not exist).
   *
   * @throws KubernetesClientException when the API server fails
   */
  public synchronized List<String> manuallySeparated() {
    ConfigMap cm = client.configMaps().inNamespace(NAMESPACE).withName(name).get();
    String v = cm == null || cm.getData() == null ? null : cm.getData().get(MANUALLY_SEPARATE_NPU);
    if (v == null || v.isBlank()) return List.of();
    List<String> out = new ArrayList<>();
    for (String n : v.split(",")) if (!n.isBlank()) out.add(n.strip());
    return out;
  }

  /**
   * Sets {@value #MANUALLY_SEPARATE_NPU} to these chip names (comma-joined), keeping every other
   * key.
   *
   * @throws KubernetesClientException when the API server fails
   */
  public synchronized void saveManuallySeparated(List<String> chipNames) {
    write(Map.of(), Optional.of(String.join(",", chipNames)));
  }

  /** Rounds of read-modify-write before a write gives up (each conflict re-reads the object). */
  static final int WRITE_ATTEMPTS = 5;

  /**
   * Read-modify-write of our keys only: {@code data} replaces its keys, the separation key is kept
   * unless given, the label {@value #CONSUMER_LABEL} is set; every other key, {@code binaryData},
   * annotation, label and owner someone else set stays. The update carries the resourceVersion
   * read, so a concurrent writer makes it fail with 409 instead of losing its change: then (and on
   * 410 Gone, or 404 when the object was deleted meanwhile) the fresh object is read and the write
   * done again, at most {@value #WRITE_ATTEMPTS} rounds.
   *
   * @throws KubernetesClientException on any other error (500 included: the next period retries),
   *     or when every round conflicted
   */
  private void write(Map<String, String> data, Optional<String> manuallySeparated) {
    for (int attempt = 1; ; attempt++) {
      try {
        ConfigMap existing = client.configMaps().inNamespace(NAMESPACE).withName(name).get();
        if (existing == null) {
          Map<String, String> fresh = new LinkedHashMap<>(data);
          fresh.put(MANUALLY_SEPARATE_NPU, manuallySeparated.orElse(""));
          client
              .configMaps()
              .inNamespace(NAMESPACE)
              .resource(
                  new ConfigMapBuilder()
                      .withNewMetadata()
                      .withName(name)
                      .withNamespace(NAMESPACE)
                      .addToLabels(CONSUMER_LABEL, "true")
                      .endMetadata()
                      .withData(fresh)
                      .build())
              .create();
          return;
        }
        Map<String, String> merged = new LinkedHashMap<>();
        if (existing.getData() != null) merged.putAll(existing.getData());
        merged.putAll(data);
        manuallySeparated.ifPresent(v -> merged.put(MANUALLY_SEPARATE_NPU, v));
        merged.putIfAbsent(MANUALLY_SEPARATE_NPU, "");
        Map<String, String> labels = new TreeMap<>();
        if (existing.getMetadata().getLabels() != null)
          labels.putAll(existing.getMetadata().getLabels());
        labels.put(CONSUMER_LABEL, "true");
        ConfigMap next =
            new ConfigMapBuilder(existing)
                .editMetadata()
                .withLabels(labels)
                .endMetadata()
                .withData(merged)
                .build();
        client.configMaps().inNamespace(NAMESPACE).resource(next).update();
        return;
      } catch (KubernetesClientException e) {
        int code = e.getCode();
        boolean again = code == 409 || code == 410 || code == 404;
        if (!again || attempt >= WRITE_ATTEMPTS) throw e;
        LOG.debug(
            "{}: {} on write {} of {}; reading it again", name, code, attempt, WRITE_ATTEMPTS);
      }
    }
  }

  /** {@code UpgradeFaultReason}: chip name → its escalations, keys sorted. */
  static String upgradeReasons(NodeChips chips) {
    Map<String, List<Map<String, Object>>> out = new TreeMap<>();
    for (ChipState c : chips.chips()) {
      if (c.health().upgrades().isEmpty()) continue;
      List<Map<String, Object>> list = new ArrayList<>();
      for (FaultUpgrade u : c.health().upgrades()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("fault_code", u.code().hex());
        m.put("fault_level", u.level().term());
        m.put("upgrade_type", u.type().name());
        m.put("upgrade_time", u.time().toEpochMilli());
        list.add(m);
      }
      out.put(c.name(), list);
    }
    try {
      return JSON.writeValueAsString(out);
    } catch (JacksonException e) {
      throw new IllegalStateException("UpgradeFaultReason not serialisable", e);
    }
  }
}
