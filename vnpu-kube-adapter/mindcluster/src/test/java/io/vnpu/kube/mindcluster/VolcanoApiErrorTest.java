package io.vnpu.kube.mindcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import io.vnpu.kube.resource.AllocationException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Volcano handshake when the API server misbehaves, with the mock server in expectation mode
 * (and the production field-selector listing): an API error fails Allocate and hands nothing out; a
 * pod deleted between list and claim makes way for the next one.
 */
@EnableKubernetesMockClient
class VolcanoApiErrorTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-07-24T10:15:30Z"), ZoneOffset.UTC);
  private static final String R = "huawei.com/Ascend910";
  private static final String LIST = "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1";

  KubernetesMockServer server;
  KubernetesClient client;

  @TempDir Path dir;

  private SimHost host;
  private HealthMonitor health;
  private MindClusterComponents components;

  @BeforeEach
  void setUp() {
    host = new SimHost("910B3x8", dir.resolve("sim"));
    health = MindClusterRegistrationTest.healthOf(host);
    health.pollOnce();
    components =
        new MindClusterComponents(
            MindClusterOptions.defaults("node-1")
                .withVolcano(true, true)
                .withRuntime(true, dir.resolve("host")),
            client,
            host.deviceManager,
            health,
            CLOCK);
    components.start(null);
  }

  @AfterEach
  void tearDown() {
    components.close();
    health.close();
    host.close();
  }

  private static Pod pod(String name, String chips, long pt) {
    return VolcanoPodsFixture.pod(
        name, "uid-" + name, R, 1, Map.of(R, chips, "predicate-time", Long.toString(pt)));
  }

  private List<RecordedRequest> requests() throws InterruptedException {
    List<RecordedRequest> out = new ArrayList<>();
    RecordedRequest r;
    while ((r = server.takeRequest(100, TimeUnit.MILLISECONDS)) != null) out.add(r);
    return out;
  }

  @Test
  void listErrorFailsAllocateAndHandsNothingOut() throws Exception {
    // a 403 is not retried by the client (a 5xx is, with backoff)
    server
        .expect()
        .get()
        .withPath(LIST)
        .andReturn(
            403,
            new StatusBuilder()
                .withCode(403)
                .withMessage("pods is forbidden: cannot list resource pods at the cluster scope")
                .build())
        .always();
    assertThatThrownBy(
            () -> components.resourceManager(R).orElseThrow().allocate(List.of("Ascend910-0")))
        .isInstanceOf(AllocationException.class)
        .hasMessageContaining("list pods on node node-1:")
        .hasMessageContaining("cannot list resource pods");
    assertThat(requests())
        .filteredOn(r -> r.getPath().startsWith("/api/v1/namespaces/default/pods"))
        .extracting(RecordedRequest::getMethod)
        .doesNotContain("PATCH");
    assertThat(components.kubeletMap().pods()).isEmpty();
  }

  @Test
  void patchErrorFailsAllocateAndRecordsNothing() throws Exception {
    server
        .expect()
        .get()
        .withPath(LIST)
        .andReturn(200, new PodListBuilder().addToItems(pod("a", "Ascend910-3", 5)).build())
        .always();
    server
        .expect()
        .get()
        .withPath("/api/v1/namespaces/default/pods/a")
        .andReturn(200, pod("a", "Ascend910-3", 5))
        .always();
    server
        .expect()
        .patch()
        .withPath("/api/v1/namespaces/default/pods/a")
        .andReturn(
            403, new StatusBuilder().withCode(403).withMessage("pods \"a\" is forbidden").build())
        .always();
    assertThatThrownBy(
            () -> components.resourceManager(R).orElseThrow().allocate(List.of("Ascend910-0")))
        .isInstanceOf(AllocationException.class)
        .hasMessageContaining("patch pod default/a (consume predicate-time):")
        .hasMessageContaining("forbidden");
    assertThat(components.kubeletMap().pods()).isEmpty();
  }

  @Test
  void aPodDeletedBetweenListAndClaimMakesWayForTheNext() throws Exception {
    server
        .expect()
        .get()
        .withPath(LIST)
        .andReturn(
            200,
            new PodListBuilder()
                .addToItems(pod("a", "Ascend910-3", 5), pod("b", "Ascend910-4", 6))
                .build())
        .once();
    // fabric8 reads the pod before patching it: both see it, the patch finds it gone
    server
        .expect()
        .get()
        .withPath("/api/v1/namespaces/default/pods/a")
        .andReturn(200, pod("a", "Ascend910-3", 5))
        .always();
    server
        .expect()
        .get()
        .withPath("/api/v1/namespaces/default/pods/b")
        .andReturn(200, pod("b", "Ascend910-4", 6))
        .always();
    server
        .expect()
        .patch()
        .withPath("/api/v1/namespaces/default/pods/a")
        .andReturn(
            404, new StatusBuilder().withCode(404).withMessage("pods \"a\" not found").build())
        .once();
    server
        .expect()
        .get()
        .withPath(LIST)
        .andReturn(200, new PodListBuilder().addToItems(pod("b", "Ascend910-4", 6)).build())
        .always();
    server
        .expect()
        .patch()
        .withPath("/api/v1/namespaces/default/pods/b")
        .andReturn(200, pod("b", "Ascend910-4", 6))
        .once();

    assertThat(components.resourceManager(R).orElseThrow().allocate(List.of("Ascend910-0")).envs())
        .containsEntry("ASCEND_VISIBLE_DEVICES", "4");
    assertThat(components.kubeletMap().pods()).containsExactly("uid-b");
    List<RecordedRequest> patches =
        requests().stream().filter(r -> r.getMethod().equals("PATCH")).toList();
    assertThat(patches)
        .extracting(RecordedRequest::getPath)
        .containsExactly("/api/v1/namespaces/default/pods/a", "/api/v1/namespaces/default/pods/b");
    assertThat(patches.get(1).getUtf8Body())
        .startsWith(
            "[{\"op\":\"test\",\"path\":\"/metadata/annotations/predicate-time\",\"value\":\"6\"},"
                + "{\"op\":\"replace\",\"path\":\"/metadata/annotations/predicate-time\",\"value\":\"18446744073709551615\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/huawei.com~1AscendReal\",\"value\":\"Ascend910-4\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/annotations/huawei.com~1kltDev\",\"value\":\"Ascend910-0\"},");
  }
}
