package io.vnpu.kube.mindcluster.recovery;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.api.fault.recovery.RankEntry;
import io.vnpu.api.fault.recovery.RecoveryRecord;
import io.vnpu.api.fault.recovery.RecoveryStep;
import io.vnpu.api.fault.recovery.RecoveryStore;
import io.vnpu.api.fault.recovery.ResetInfo;
import io.vnpu.api.fault.recovery.TrainingJob;
import io.vnpu.kube.json.JsonMappers;
import io.vnpu.kube.mindcluster.kube.CheckCode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link RecoveryStore} over the job's ConfigMaps in the job's namespace, in MindCluster's format:
 *
 * <ul>
 *   <li>{@code reset-config-<job>}: {@code reset.json} (the {@link ResetInfo}, field names {@code
 *       RankList[{RankId, LogicId, Status, Policy, InitialPolicy, ErrorCode, ErrorCodeHex}]},
 *       {@code UpdateTime}, {@code RetryTime}, {@code FaultFlushing}, {@code GracefulExit}, {@code
 *       RestartFaultProcess}), {@code restartType} ({@code hotReset}) and {@code checkCode}
 *       (SHA-256 hex of {@code reset.json}); label {@code reset: "true"};
 *   <li>{@code fault-config-<job>}: {@code fault-npus} (the faulty ranks, same element format) and
 *       {@code checkCode}.
 * </ul>
 *
 * A job may span nodes and every node's plugin writes the same ConfigMaps: ranks of other nodes
 * (other {@code RankId}s) and every other key are kept, each node keeps its own record in the
 * annotation {@value #RECORD_ANNOTATION}{@code <node>}, and a write that lost a race (409) is
 * retried on the fresh object. The ConfigMaps are in the tenant's namespace, so what is read back
 * is only trusted as far as {@link io.vnpu.api.fault.recovery.TrainingRecovery} re-checks it.
 */
public final class ResetConfigMaps implements RecoveryStore {
  public static final String RESET_PREFIX = "reset-config-";
  public static final String FAULT_PREFIX = "fault-config-";
  public static final String RESET_JSON = "reset.json";
  public static final String RESTART_TYPE = "restartType";
  public static final String CHECK_CODE = "checkCode";
  public static final String FAULT_NPUS = "fault-npus";
  public static final String RECORD_ANNOTATION = "vnpu.io/training-recovery.";
  private static final int ATTEMPTS = 3;
  private static final JsonMapper JSON = JsonMappers.compact();

  private final KubernetesClient client;
  private final String nodeName;

  public ResetConfigMaps(KubernetesClient client, String nodeName) {
    this.client = Objects.requireNonNull(client, "client");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
  }

  @Override
  public Optional<Persisted> load(TrainingJob job) {
    ConfigMap cm =
        client.configMaps().inNamespace(job.namespace()).withName(RESET_PREFIX + job.name()).get();
    if (cm == null || cm.getMetadata().getAnnotations() == null) return Optional.empty();
    String record = cm.getMetadata().getAnnotations().get(RECORD_ANNOTATION + nodeName);
    if (record == null) return Optional.empty();
    try {
      RecoveryRecord r = parseRecord(JSON.readTree(record));
      Set<Integer> mine = new TreeSet<>(job.ranks().values());
      ResetInfo info = parseInfo(cm.getData() == null ? null : cm.getData().get(RESET_JSON), mine);
      return Optional.of(new Persisted(info, r));
    } catch (JacksonException | IllegalArgumentException | NullPointerException e) {
      // written by us, editable by the job's owner: unreadable means start over, never a crash
      return Optional.empty();
    }
  }

  @Override
  public void save(
      TrainingJob job, ResetInfo info, RecoveryRecord record, List<RankEntry> faultNpus) {
    Set<Integer> mine = new TreeSet<>(job.ranks().values());
    update(
        job.namespace(),
        RESET_PREFIX + job.name(),
        old -> {
          Map<String, String> data = new LinkedHashMap<>(old);
          String json = resetJson(info, keptRanks(old.get(RESET_JSON), mine));
          data.put(RESET_JSON, json);
          data.put(RESTART_TYPE, ResetInfo.RESTART_TYPE_HOT_RESET);
          data.put(CHECK_CODE, CheckCode.of(json));
          return data;
        },
        Map.of(RECORD_ANNOTATION + nodeName, recordJson(record)));
    if (faultNpus != null) {
      update(
          job.namespace(),
          FAULT_PREFIX + job.name(),
          old -> {
            Map<String, String> data = new LinkedHashMap<>(old);
            List<Object> all = new ArrayList<>(keptList(old.get(FAULT_NPUS), mine));
            for (RankEntry e : faultNpus) all.add(rank(e));
            String json = write(all);
            data.put(FAULT_NPUS, json);
            data.put(CHECK_CODE, CheckCode.of(json));
            return data;
          },
          Map.of());
    }
  }

  private interface DataChange {
    Map<String, String> apply(Map<String, String> old);
  }

  private void update(String ns, String name, DataChange change, Map<String, String> annotations) {
    KubernetesClientException last = null;
    for (int i = 0; i < ATTEMPTS; i++) {
      ConfigMap old = client.configMaps().inNamespace(ns).withName(name).get();
      Map<String, String> data =
          change.apply(old == null || old.getData() == null ? Map.of() : old.getData());
      try {
        if (old == null) {
          client
              .configMaps()
              .inNamespace(ns)
              .resource(
                  new ConfigMapBuilder()
                      .withNewMetadata()
                      .withName(name)
                      .withNamespace(ns)
                      .addToLabels("reset", "true")
                      .addToAnnotations(annotations)
                      .endMetadata()
                      .withData(data)
                      .build())
              .create();
        } else {
          ConfigMap next =
              new ConfigMapBuilder(old)
                  .editMetadata()
                  .addToAnnotations(annotations)
                  .endMetadata()
                  .withData(data)
                  .build();
          client
              .configMaps()
              .inNamespace(ns)
              .resource(next)
              .update(); // resourceVersion kept: 409 on a race
        }
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) throw e;
        last = e;
      }
    }
    throw last;
  }

  static String resetJson(ResetInfo info, List<Object> otherRanks) {
    List<Object> ranks = new ArrayList<>(otherRanks);
    for (RankEntry e : info.rankList()) ranks.add(rank(e));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("RankList", ranks);
    m.put("UpdateTime", info.updateTime());
    m.put("RetryTime", info.retryTime());
    m.put("FaultFlushing", info.faultFlushing());
    m.put("GracefulExit", info.gracefulExit());
    m.put("RestartFaultProcess", info.restartFaultProcess());
    return write(m);
  }

  private static Map<String, Object> rank(RankEntry e) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("RankId", e.rankId());
    m.put("LogicId", e.logicId());
    m.put("Status", e.status());
    m.put("Policy", e.policy());
    m.put("InitialPolicy", e.initialPolicy());
    m.put("ErrorCode", e.errorCode());
    m.put("ErrorCodeHex", e.errorCodeHex());
    return m;
  }

  /** The RankList entries of other nodes (RankIds not ours), as found. */
  private static List<Object> keptRanks(String resetJson, Set<Integer> mine) {
    if (resetJson == null) return List.of();
    try {
      return keptList(JSON.writeValueAsString(JSON.readTree(resetJson).path("RankList")), mine);
    } catch (JacksonException e) {
      return List.of();
    }
  }

  private static List<Object> keptList(String array, Set<Integer> mine) {
    List<Object> out = new ArrayList<>();
    if (array == null) return out;
    try {
      JsonNode n = JSON.readTree(array);
      if (!n.isArray()) return out;
      for (JsonNode e : n) {
        if (!e.path("RankId").isInt() || mine.contains(e.path("RankId").asInt())) continue;
        out.add(JSON.treeToValue(e, Object.class));
      }
    } catch (JacksonException e) {
      // an unreadable value written by someone else is replaced by ours
    }
    return out;
  }

  private static ResetInfo parseInfo(String json, Set<Integer> mine) {
    if (json == null) return new ResetInfo(List.of(), 0, 0, false, 0, false);
    JsonNode n = JSON.readTree(json);
    List<RankEntry> ranks = new ArrayList<>();
    for (JsonNode e : n.path("RankList")) {
      int rank = e.path("RankId").asInt(-1);
      if (!mine.contains(rank)) continue;
      List<Long> codes = new ArrayList<>();
      for (JsonNode c : e.path("ErrorCode")) codes.add(c.asLong());
      ranks.add(
          new RankEntry(
              rank,
              e.path("LogicId").asInt(-1),
              e.path("Status").asText(""),
              e.path("Policy").asText(""),
              e.path("InitialPolicy").asText(""),
              codes,
              e.path("ErrorCodeHex").asText("")));
    }
    return new ResetInfo(
        ranks,
        n.path("UpdateTime").asLong(0),
        n.path("RetryTime").asInt(0),
        n.path("FaultFlushing").asBoolean(false),
        n.path("GracefulExit").asInt(0),
        n.path("RestartFaultProcess").asBoolean(false));
  }

  static String recordJson(RecoveryRecord r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("step", r.step().name());
    m.put("ring", r.ring());
    m.put("faulty", r.faulty());
    m.put("deadline", r.deadline().toEpochMilli());
    m.put("resetIssued", r.resetIssued());
    m.put("attempt", r.attempt());
    m.put("detail", r.detail());
    return write(m);
  }

  private static RecoveryRecord parseRecord(JsonNode n) {
    Set<Integer> ring = new TreeSet<>();
    for (JsonNode e : n.path("ring")) ring.add(e.asInt());
    Set<Integer> faulty = new TreeSet<>();
    for (JsonNode e : n.path("faulty")) faulty.add(e.asInt());
    return new RecoveryRecord(
        RecoveryStep.valueOf(n.path("step").asText()),
        ring,
        faulty,
        Instant.ofEpochMilli(n.path("deadline").asLong()),
        n.path("resetIssued").asBoolean(false),
        Math.max(1, n.path("attempt").asInt(1)),
        n.path("detail").asText(""));
  }

  private static String write(Object o) {
    try {
      return JSON.writeValueAsString(o);
    } catch (JacksonException e) {
      throw new IllegalStateException("recovery record not serialisable", e);
    }
  }
}
