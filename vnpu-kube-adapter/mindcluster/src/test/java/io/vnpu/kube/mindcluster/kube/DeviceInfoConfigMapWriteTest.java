package io.vnpu.kube.mindcluster.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.vnpu.kube.mindcluster.devices.NodeChips;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue #25: writing {@code mindx-dl-deviceinfo-<node>} replaced the object with our keys and our
 * label, dropping the annotations, {@code binaryData} and labels others set, and a concurrent
 * writer's 409 failed the write. Only our keys are updated now; a 409 (or 410, or 404 when it was
 * deleted meanwhile) reads the fresh object and writes again; a 500 fails this write, the next
 * period writes again.
 */
class DeviceInfoConfigMapWriteTest {
  private static final String PATH =
      "/api/v1/namespaces/kube-system/configmaps/mindx-dl-deviceinfo-node-1";
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-07-24T10:15:30Z"), ZoneOffset.UTC);

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : open) c.close();
  }

  private KubernetesMockServer server(boolean crud) {
    KubernetesMockServer s =
        crud
            ? new KubernetesMockServer(
                new io.fabric8.mockwebserver.Context(),
                new io.fabric8.mockwebserver.MockWebServer(),
                new java.util.HashMap<>(),
                new io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher(),
                false)
            : new KubernetesMockServer(false);
    s.init();
    open.add(s::destroy);
    return s;
  }

  /**
   * A client of the mock that does not retry a 5xx itself (the agent's retries once, after 0.5 s).
   */
  private KubernetesClient client(KubernetesMockServer s) {
    KubernetesClient c =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(s.createClient().getConfiguration())
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .build();
    open.add(c);
    return c;
  }

  private static DeviceInfoConfigMap writer(KubernetesClient client) {
    return new DeviceInfoConfigMap(
        client,
        "node-1",
        CLOCK,
        new WriteLimiter(CLOCK, WriteLimiter.MIN_GAP, WriteLimiter.REFRESH));
  }

  private static ConfigMap othersConfigMap(String resourceVersion, String annotation) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName("mindx-dl-deviceinfo-node-1")
        .withNamespace("kube-system")
        .withResourceVersion(resourceVersion)
        .addToAnnotations("ops.example.com/note", annotation)
        .addToLabels("team", "infra")
        .endMetadata()
        .addToData("Other", "kept")
        .addToData("ManuallySeparateNPU", "Ascend910-5")
        .addToBinaryData("blob", "AAEC")
        .build();
  }

  @Test
  void onlyOurKeysAndLabelAreWrittenEverythingElseStays() {
    KubernetesMockServer s = server(true);
    KubernetesClient client = client(s);
    client
        .configMaps()
        .inNamespace("kube-system")
        .resource(othersConfigMap(null, "set by ops"))
        .create();

    assertThat(writer(client).publish(NodeChips.EMPTY, Set.of())).isTrue();

    ConfigMap cm =
        client.configMaps().inNamespace("kube-system").withName("mindx-dl-deviceinfo-node-1").get();
    assertThat(cm.getMetadata().getAnnotations())
        .containsEntry("ops.example.com/note", "set by ops");
    assertThat(cm.getMetadata().getLabels())
        .containsEntry("team", "infra")
        .containsEntry("mx-consumer-cim", "true");
    assertThat(cm.getBinaryData()).containsEntry("blob", "AAEC");
    assertThat(cm.getData())
        .containsEntry("Other", "kept")
        .containsEntry("ManuallySeparateNPU", "Ascend910-5")
        .containsKeys("DeviceInfoCfg", "UpgradeFaultReason", "Description");
  }

  @Test
  void aConflictReadsTheFreshObjectAndWritesAgainKeepingTheOtherWritersChange() throws Exception {
    KubernetesMockServer s = server(false);
    s.expect().get().withPath(PATH).andReturn(200, othersConfigMap("1", "first")).once();
    s.expect()
        .put()
        .withPath(PATH)
        .andReturn(
            409,
            new StatusBuilder()
                .withCode(409)
                .withReason("Conflict")
                .withMessage("the object has been modified")
                .build())
        .once();
    s.expect().get().withPath(PATH).andReturn(200, othersConfigMap("2", "second writer")).once();
    s.expect().put().withPath(PATH).andReturn(200, othersConfigMap("3", "second writer")).once();
    KubernetesClient client = client(s);

    assertThat(writer(client).publish(NodeChips.EMPTY, Set.of())).isTrue();

    List<RecordedRequest> puts = new ArrayList<>();
    for (RecordedRequest r; (r = s.takeRequest(100, TimeUnit.MILLISECONDS)) != null; ) {
      if (r.getMethod().equals("PUT")) puts.add(r);
    }
    assertThat(puts).hasSize(2);
    ConfigMap second =
        client
            .getKubernetesSerialization()
            .unmarshal(puts.get(1).getBody().readUtf8(), ConfigMap.class);
    assertThat(second.getMetadata().getResourceVersion()).isEqualTo("2");
    assertThat(second.getMetadata().getAnnotations())
        .containsEntry("ops.example.com/note", "second writer");
    assertThat(second.getBinaryData()).containsEntry("blob", "AAEC");
    assertThat(second.getData()).containsEntry("Other", "kept").containsKey("DeviceInfoCfg");
  }

  @Test
  void goneMeanwhileIsCreatedAndAServerErrorFailsThisWriteOnly() {
    KubernetesMockServer s = server(false);
    s.expect().get().withPath(PATH).andReturn(200, othersConfigMap("1", "first")).once();
    s.expect()
        .put()
        .withPath(PATH)
        .andReturn(410, new StatusBuilder().withCode(410).withReason("Gone").build())
        .once();
    s.expect()
        .get()
        .withPath(PATH)
        .andReturn(404, new StatusBuilder().withCode(404).build())
        .once();
    s.expect()
        .post()
        .withPath("/api/v1/namespaces/kube-system/configmaps")
        .andReturn(
            500,
            new StatusBuilder().withCode(500).withMessage("etcdserver: request timed out").build())
        .once();
    s.expect()
        .get()
        .withPath(PATH)
        .andReturn(404, new StatusBuilder().withCode(404).build())
        .once();
    s.expect()
        .post()
        .withPath("/api/v1/namespaces/kube-system/configmaps")
        .andReturn(201, othersConfigMap("5", "x"))
        .once();
    KubernetesClient client = client(s);
    DeviceInfoConfigMap writer = writer(client);

    assertThatThrownBy(() -> writer.publish(NodeChips.EMPTY, Set.of()))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(500));
    // not marked written: the next period writes (and creates it)
    assertThat(writer.publish(NodeChips.EMPTY, Set.of())).isTrue();
  }
}
