package io.vnpu.kube.hami;

import static io.vnpu.kube.hami.KubeFixtures.NODE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.vnpu.api.model.VnpuTemplate;
import io.vnpu.kube.hami.alloc.HardSplitStrategy;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.resource.AllocationException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * API errors during a bind, with the mock server in expectation mode: the pod gets {@code
 * hami.io/bind-phase: failed}, the node lock is released, created vNPUs are destroyed.
 */
@EnableKubernetesMockClient
class HamiApiErrorMockServerTest {
  static final String LOCK = "2024-01-01T00:00:00Z,default,test-pod";

  KubernetesMockServer server;
  KubernetesClient client;

  private void expectBind(int devicesPatchStatus) {
    server
        .expect()
        .get()
        .withPath("/api/v1/nodes/" + NODE)
        .andReturn(
            200,
            new NodeBuilder()
                .withNewMetadata()
                .withName(NODE)
                .addToAnnotations("hami.io/mutex.lock", LOCK)
                .endMetadata()
                .build())
        .always();
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("test-pod")
            .withNamespace("default")
            .withUid("u-1")
            .addToAnnotations("hami.io/bind-phase", "allocating")
            .addToAnnotations("hami.io/bind-time", "1")
            .addToAnnotations("hami.io/vgpu-node", NODE)
            .addToAnnotations("hami.io/Ascend910-devices-to-allocate", "uuid1,Ascend910,8738,0:;")
            .addToAnnotations("huawei.com/Ascend910", "[{\"UUID\":\"uuid1\",\"temp\":\"vir08\"}]")
            .endMetadata()
            .withNewSpec()
            .withNodeName(NODE)
            .addNewContainer()
            .withName("main")
            .withNewResources()
            .addToLimits("huawei.com/Ascend910", new io.fabric8.kubernetes.api.model.Quantity("1"))
            .endResources()
            .endContainer()
            .endSpec()
            .withNewStatus()
            .withPhase("Pending")
            .endStatus()
            .build();
    server
        .expect()
        .get()
        .withPath("/api/v1/namespaces/default/pods/test-pod")
        .andReturn(200, pod)
        .always();
    server
        .expect()
        .patch()
        .withPath("/api/v1/namespaces/default/pods/test-pod")
        .andReturn(
            devicesPatchStatus,
            new StatusBuilder()
                .withCode(devicesPatchStatus)
                .withMessage("pods \"test-pod\" is forbidden: User \"hami\" cannot patch")
                .build())
        .once();
    server
        .expect()
        .patch()
        .withPath("/api/v1/namespaces/default/pods/test-pod")
        .andReturn(200, pod)
        .always();
    server
        .expect()
        .patch()
        .withPath("/api/v1/nodes/" + NODE)
        .andReturn(200, new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .always();
  }

  private HamiComponents rig(FakeDeviceManager dm, HardSplitStrategy strategy) {
    HamiChipSettings chip =
        new HamiChipSettings(
            "910A",
            "Ascend910",
            "huawei.com/Ascend910",
            32768,
            32768,
            30,
            List.of(new VnpuTemplate("vir08", 8738, 8, 0)));
    HamiComponents c =
        new HamiComponents(
            client,
            dm,
            chip,
            HamiNodeSettings.defaults(false),
            HamiOptions.defaults(NODE).withHardSplit(strategy),
            new MutableClock(Instant.EPOCH),
            new RecordingScheduler());
    c.inventory().refresh();
    return c;
  }

  private List<RecordedRequest> patches() throws InterruptedException {
    List<RecordedRequest> out = new ArrayList<>();
    RecordedRequest r;
    while ((r = server.takeRequest(100, TimeUnit.MILLISECONDS)) != null) {
      if (r.getMethod().equals("PATCH")) out.add(r);
    }
    return out;
  }

  @Test
  void forbiddenPatchFailsBindAndReleasesLock() throws Exception {
    expectBind(403);
    FakeDeviceManager dm =
        new FakeDeviceManager(List.of(FakeDeviceManager.npu("uuid1", 0, 3, "910A")));
    assertThatThrownBy(
            () ->
                rig(dm, HardSplitStrategy.RUNTIME_CREATES_VNPU)
                    .resourceManager()
                    .allocate(List.of("uuid1-0")))
        .isInstanceOf(AllocationException.class)
        .hasMessageContaining("allocate for pod default/test-pod: API server:")
        .hasMessageContaining("forbidden");
    List<RecordedRequest> patches = patches();
    assertThat(patches)
        .extracting(RecordedRequest::getPath)
        .containsExactly(
            "/api/v1/namespaces/default/pods/test-pod",
            "/api/v1/namespaces/default/pods/test-pod",
            "/api/v1/nodes/" + NODE);
    assertThat(patches.get(0).getUtf8Body())
        .isEqualTo(
            "{\"metadata\":{\"annotations\":{\"hami.io/Ascend910-devices-to-allocate\":\";\"}}}");
    assertThat(patches.get(1).getUtf8Body())
        .isEqualTo("{\"metadata\":{\"annotations\":{\"hami.io/bind-phase\":\"failed\"}}}");
    assertThat(patches.get(2).getUtf8Body())
        .isEqualTo(
            "[{\"op\":\"test\",\"path\":\"/metadata/annotations/hami.io~1mutex.lock\",\"value\":\""
                + LOCK
                + "\"},"
                + "{\"op\":\"remove\",\"path\":\"/metadata/annotations/hami.io~1mutex.lock\"}]");
  }

  @Test
  void apiErrorAfterVnpuCreationDestroysTheVnpu() throws Exception {
    expectBind(409);
    FakeDeviceManager dm =
        new FakeDeviceManager(List.of(FakeDeviceManager.npu("uuid1", 0, 3, "910A")));
    assertThatThrownBy(
            () ->
                rig(dm, HardSplitStrategy.PLUGIN_CREATES_VNPU)
                    .resourceManager()
                    .allocate(List.of("uuid1-0")))
        .hasMessageContaining("API server:");
    assertThat(dm.calls()).contains("create 0 vir08", "destroy 0 100");
    assertThat(dm.listVnpus(0)).isEmpty();
    assertThat(patches())
        .extracting(r -> r.getUtf8Body())
        .contains("{\"metadata\":{\"annotations\":{\"hami.io/bind-phase\":\"failed\"}}}");
  }
}
