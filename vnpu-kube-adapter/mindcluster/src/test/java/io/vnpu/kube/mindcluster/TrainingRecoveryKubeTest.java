package io.vnpu.kube.mindcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.fault.FaultConfigs;
import io.vnpu.api.fault.FaultTracker;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.fault.recovery.RecoveryStep;
import io.vnpu.api.fault.recovery.TrainingRecovery;
import io.vnpu.api.health.FaultNotifier;
import io.vnpu.api.health.ManualSeparationStore;
import io.vnpu.dcmi.fault.DcmiChipResetter;
import io.vnpu.dcmi.fault.DcmiFaultProbe;
import io.vnpu.kube.mindcluster.recovery.RecoveryEventsToKube;
import io.vnpu.kube.mindcluster.recovery.ResetConfigMaps;
import io.vnpu.kube.mindcluster.recovery.TrainingPods;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * {@code -hotReset=2} end to end against the CRUD mock API server and the simulated 910B ring: a
 * Volcano job's pod on 8 chips, a RestartNPU fault injected with {@code vnpu-sim-ctl}; the job's
 * {@code reset-config-<job>} ConfigMap goes through its states in order as the job's agent reads it
 * (field names, checkCode recomputed here), the ranks another node wrote survive, the ring is reset
 * only after the job's processes are gone, and a plugin restarted mid-sequence resumes from the
 * ConfigMap.
 */
@EnableKubernetesMockClient(crud = true)
class TrainingRecoveryKubeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NS = "train";
  private static final String CM = "reset-config-llama";

  KubernetesClient client;

  @TempDir Path dir;

  private SimHost host;
  private final Set<Integer> inUse = ConcurrentHashMap.newKeySet();

  private final class Plugin {
    final HealthMonitor monitor;
    final TrainingRecovery recovery;

    Plugin() {
      DcmiFaultProbe probe = new DcmiFaultProbe(host.deviceManager.dcmi(), Clock.systemUTC());
      monitor =
          new HealthMonitor(
              probe,
              new FaultTracker(FaultConfigs.shippedDefault(), Clock.systemUTC()),
              ManualSeparationStore.inMemory(),
              inUse::contains,
              FaultNotifier.NONE,
              Duration.ofSeconds(1));
      Map<String, Integer> logicOfChip = new TreeMap<>();
      for (int logic = 0; logic < 8; logic++) {
        logicOfChip.put("Ascend910-" + host.deviceManager.dcmi().phyId(logic), logic);
      }
      recovery =
          TrainingRecovery.builder()
              .monitor(monitor)
              .resetter(new DcmiChipResetter(host.deviceManager.dcmi(), probe))
              .usage(inUse::contains)
              // the mock API server has no field selectors: all pods, TrainingPods keeps this
              // node's
              .jobs(
                  new TrainingPods(
                      () -> client.pods().inAnyNamespace().list().getItems(),
                      "node-1",
                      logicOfChip))
              .store(new ResetConfigMaps(client, "node-1"))
              .events(new RecoveryEventsToKube(client, "node-1", Clock.systemUTC()))
              .bounds(
                  new TrainingRecovery.Bounds(
                      Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(2), 3))
              .build();
    }

    void round() {
      monitor.pollOnce();
      recovery.runOnce();
    }
  }

  @BeforeEach
  void setUp() {
    host = new SimHost("910B3x8", dir.resolve("sim"));
    host.ctl("boot-ms", "150");
  }

  @AfterEach
  void tearDown() {
    host.close();
  }

  private void createJobPod() {
    List<String> chips = new ArrayList<>();
    for (int logic = 0; logic < 8; logic++)
      chips.add("Ascend910-" + host.deviceManager.dcmi().phyId(logic));
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("llama-worker-1")
            .withNamespace(NS)
            .addToLabels("volcano.sh/job-name", "llama")
            .addToAnnotations("huawei.com/AscendReal", String.join(",", chips))
            .addToAnnotations("hccl/rankIndex", "1")
            .endMetadata()
            .withNewSpec()
            .withNodeName("node-1")
            .endSpec()
            .withNewStatus()
            .withPhase("Running")
            .endStatus()
            .build();
    client.pods().inNamespace(NS).resource(pod).create();
    for (int logic = 0; logic < 8; logic++) {
      inUse.add(logic);
      host.ctl("proc", String.valueOf(logic), String.valueOf(5000 + logic));
    }
  }

  private JsonNode resetJson() throws Exception {
    ConfigMap cm = client.configMaps().inNamespace(NS).withName(CM).get();
    String json = cm.getData().get("reset.json");
    assertThat(cm.getData().get("checkCode"))
        .isEqualTo(
            HexFormat.of()
                .formatHex(
                    MessageDigest.getInstance("SHA-256")
                        .digest(json.getBytes(StandardCharsets.UTF_8))));
    assertThat(cm.getData()).containsEntry("restartType", "hotReset");
    return JSON.readTree(json);
  }

  private String step() {
    ConfigMap cm = client.configMaps().inNamespace(NS).withName(CM).get();
    if (cm == null) return "";
    String rec = cm.getMetadata().getAnnotations().get("vnpu.io/training-recovery.node-1");
    try {
      return JSON.readTree(rec).path("step").asText();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static void until(BooleanSupplier done, Runnable round) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("not reached within 15 s").isLessThan(end);
      round.run();
      Thread.sleep(20);
    }
  }

  @Test
  void theJobsConfigMapGoesThroughItsStatesAndTheRingComesBack() throws Exception {
    // the job's own ConfigMap, as its YAML creates it, with the rank another node already marked
    client
        .configMaps()
        .inNamespace(NS)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(CM)
                .withNamespace(NS)
                .addToLabels("reset", "true")
                .endMetadata()
                .addToData(
                    "reset.json",
                    "{\"RankList\":[{\"RankId\":3,\"LogicId\":3,\"Status\":\"unrecovered\"}]}")
                .addToData("owner-key", "kept")
                .build())
        .create();
    createJobPod();
    Plugin plugin = new Plugin();
    host.ctl("fault", "4", "0x40F84E00");
    plugin.round();
    assertThat(step()).isEqualTo("STOPPING");
    JsonNode asked = resetJson();
    assertThat(asked.path("GracefulExit").asInt()).isEqualTo(1);
    assertThat(asked.path("FaultFlushing").asBoolean()).isTrue();
    assertThat(asked.path("RestartFaultProcess").asBoolean()).isFalse();
    List<Integer> ranks = new ArrayList<>();
    asked.path("RankList").forEach(r -> ranks.add(r.path("RankId").asInt()));
    assertThat(ranks).containsExactly(3, 8, 9, 10, 11, 12, 13, 14, 15); // node-0's rank 3 kept
    JsonNode faulty = asked.path("RankList").get(5);
    assertThat(faulty.path("RankId").asInt()).isEqualTo(12);
    assertThat(faulty.path("LogicId").asInt()).isEqualTo(4);
    assertThat(faulty.path("Status").asText()).isEqualTo("unrecovered");
    assertThat(faulty.path("Policy").asText()).isEqualTo("reset");
    assertThat(faulty.path("InitialPolicy").asText()).isEqualTo("reset");
    assertThat(faulty.path("ErrorCode").get(0).asLong()).isEqualTo(0x40F84E00L);
    assertThat(faulty.path("ErrorCodeHex").asText()).isEqualTo("40F84E00");
    ConfigMap faultCm = client.configMaps().inNamespace(NS).withName("fault-config-llama").get();
    assertThat(JSON.readTree(faultCm.getData().get("fault-npus")).get(0).path("RankId").asInt())
        .isEqualTo(12);
    assertThat(client.configMaps().inNamespace(NS).withName(CM).get().getData())
        .containsEntry("owner-key", "kept");

    for (int i = 0; i < 5; i++) plugin.round();
    assertThat(step()).isEqualTo("STOPPING");
    assertThat(host.ctl("show-faults")).doesNotContain("resets=1");

    for (int logic = 0; logic < 8; logic++) host.ctl("proc-clear", String.valueOf(logic));
    List<String> seen = new ArrayList<>();
    until(
        () -> {
          String s = step();
          if (seen.isEmpty() || !seen.get(seen.size() - 1).equals(s)) seen.add(s);
          return s.equals("RECOVERED");
        },
        plugin::round);
    assertThat(seen).containsSubsequence("STOPPING", "RECOVERED");
    assertThat(seen).isSubsetOf("STOPPING", "RESETTING", "CHECKING_NETWORK", "RECOVERED");
    JsonNode done = resetJson();
    assertThat(done.path("GracefulExit").asInt()).isZero();
    assertThat(done.path("FaultFlushing").asBoolean()).isFalse();
    assertThat(done.path("RankList").get(5).path("Status").asText()).isEqualTo("recovered");
    assertThat(done.path("RankList").get(0).path("Status").asText())
        .isEqualTo("unrecovered"); // node-0's
    assertThat(host.ctl("show-faults").lines().filter(l -> l.contains("resets=1"))).hasSize(8);
    List<String> reasons =
        client.v1().events().inNamespace(NS).list().getItems().stream()
            .map(Event::getReason)
            .toList();
    assertThat(reasons)
        .contains("FaultRecoveryStarted", "RingResetStarted", "RingBooted", "FaultRecovered");
  }

  @Test
  void aPluginRestartedWhileTheRingBootsResumesFromTheConfigMap() throws Exception {
    createJobPod();
    host.ctl("boot-ms", "1500");
    Plugin first = new Plugin();
    host.ctl("fault", "0", "0x40F84E00");
    first.round();
    for (int logic = 0; logic < 8; logic++) host.ctl("proc-clear", String.valueOf(logic));
    until(
        () ->
            step().equals("RESETTING")
                && client
                    .configMaps()
                    .inNamespace(NS)
                    .withName(CM)
                    .get()
                    .getMetadata()
                    .getAnnotations()
                    .get("vnpu.io/training-recovery.node-1")
                    .contains("\"resetIssued\":true"),
        first::round);
    Plugin second = new Plugin(); // the first one died; a new process reads the ConfigMap
    until(() -> step().equals(RecoveryStep.RECOVERED.name()), second::round);
    assertThat(host.ctl("show-faults").lines().filter(l -> l.contains("resets=1"))).hasSize(8);
  }
}
