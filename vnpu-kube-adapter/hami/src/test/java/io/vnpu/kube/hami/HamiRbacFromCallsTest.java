package io.vnpu.kube.hami;

import static io.vnpu.kube.hami.KubeFixtures.node;
import static io.vnpu.kube.hami.KubeFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.vnpu.api.model.VnpuTemplate;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.testing.RbacFromCalls;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Least privilege in HAMi mode: the calls the agent makes to the mock API server (register and
 * handshake rounds, an Allocate with the node lock, the idle vNPU cleanup, the pod sweep failing a
 * stale bind) give the rules it needs; the chart's HAMi ClusterRole grants exactly those.
 */
@EnableKubernetesMockClient(crud = true)
class HamiRbacFromCallsTest {
  static final String AGENT = "vnpu-hami-under-test";
  static final String LOCK = "2024-01-01T00:00:00Z,default,test-pod";

  KubernetesClient client;
  KubernetesMockServer server;

  static java.nio.file.Path manifests() {
    for (java.nio.file.Path d = java.nio.file.Path.of("").toAbsolutePath();
        d != null;
        d = d.getParent()) {
      if (java.nio.file.Files.isDirectory(d.resolve("deploy/manifests"))) {
        return d.resolve("deploy/manifests");
      }
    }
    throw new IllegalStateException("no deploy/manifests above " + java.nio.file.Path.of(""));
  }

  @Test
  void theChartGrantsHamiModeExactlyWhatTheAgentCalls() throws Exception {
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(
        client,
        "test-pod",
        1700000000L,
        Map.of(
            "hami.io/Ascend910-devices-to-allocate", "uuid1,Ascend910,8738,0:;",
            "huawei.com/Ascend910", "[{\"UUID\":\"uuid1\",\"temp\":\"vir08\"}]"),
        List.of(),
        List.of("main"));
    // a bind whose pod failed before its Allocate: the sweep marks it failed
    pod(client, "stale", 1700000001L, Map.of(), List.of(), List.of("main"));
    Pod stale = client.pods().inNamespace("default").withName("stale").get();
    client
        .pods()
        .inNamespace("default")
        .resource(new PodBuilder(stale).editStatus().withPhase("Failed").endStatus().build())
        .updateStatus();

    HamiChipSettings chip =
        new HamiChipSettings(
            "910A",
            "Ascend910",
            "huawei.com/Ascend910",
            32768,
            32768,
            30,
            List.of(new VnpuTemplate("vir08", 8738, 8, 0)));
    FakeDeviceManager dm =
        new FakeDeviceManager(List.of(FakeDeviceManager.npu("uuid1", 0, 3, "910A")));
    dm.addVnpu(0, 100, "vir08", false); // an orphan for the idle cleanup to look at
    RecordingScheduler scheduler = new RecordingScheduler();
    try (KubernetesClient agent = RbacFromCalls.clientAs(client, AGENT);
        HamiComponents c =
            new HamiComponents(
                agent,
                dm,
                chip,
                HamiNodeSettings.defaults(false),
                HamiOptions.defaults(KubeFixtures.NODE),
                new MutableClock(Instant.parse("2026-07-24T10:15:30Z")),
                scheduler)) {
      c.start();
      for (int i = 0; i < 6 && !scheduler.tasks.isEmpty(); i++) {
        scheduler.runNext(); // register, idle cleanup, sweep (each reschedules itself)
      }
      c.resourceManager().allocate(List.of("uuid1-0"));
      c.registerLoop().runOnce();
    }
    assertThat(KubeFixtures.podAnnotations(client, "test-pod"))
        .containsEntry("hami.io/bind-phase", "success");
    assertThat(KubeFixtures.podAnnotations(client, "stale"))
        .containsEntry("hami.io/bind-phase", "failed");

    Set<String> needed = RbacFromCalls.needed(RbacFromCalls.drain(server, AGENT));
    assertThat(needed).contains("/nodes/get", "/nodes/patch", "/pods/list", "/pods/patch");
    // the chart as rendered for mode hami (HelmChartTest keeps deploy/manifests/hami.yaml fresh)
    ClusterRole role;
    try (var in = java.nio.file.Files.newInputStream(manifests().resolve("hami.yaml"))) {
      role =
          client.load(in).items().stream()
              .filter(ClusterRole.class::isInstance)
              .map(ClusterRole.class::cast)
              .findFirst()
              .orElseThrow();
    }
    assertThat(RbacFromCalls.granted(role.getRules()))
        .as("calls seen: %s", needed)
        .isEqualTo(needed);
  }
}
