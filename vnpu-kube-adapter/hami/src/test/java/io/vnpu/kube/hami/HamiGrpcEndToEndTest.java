package io.vnpu.kube.hami;

import static io.vnpu.kube.hami.KubeFixtures.NODE;
import static io.vnpu.kube.hami.KubeFixtures.node;
import static io.vnpu.kube.hami.KubeFixtures.nodeAnnotations;
import static io.vnpu.kube.hami.KubeFixtures.pod;
import static io.vnpu.kube.hami.KubeFixtures.podAnnotations;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.StatusRuntimeException;
import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.VnpuTemplate;
import io.vnpu.kube.deviceplugin.DevicePluginServer;
import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginClient;
import io.vnpu.kube.deviceplugin.v1beta1.AllocateResponse;
import io.vnpu.kube.deviceplugin.v1beta1.Device;
import io.vnpu.kube.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vnpu.kube.deviceplugin.v1beta1.RegisterRequest;
import io.vnpu.kube.hami.alloc.SoftSplitLayout;
import io.vnpu.kube.hami.codec.HamiNames;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.limiter.LimiterFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HAMi resource manager behind the real gRPC device plugin over a unix socket, driven by the
 * kubelet stand-in, with the fabric8 CRUD mock as API server: register, ListAndWatch with health
 * going bad and recovering, and Allocate of HAMi-annotated pods (whole, hard, soft, two containers
 * in one call).
 */
@EnableKubernetesMockClient(crud = true)
class HamiGrpcEndToEndTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  KubernetesClient client;

  @TempDir Path dir;

  private KubeletStandIn kubelet;
  private DevicePluginServer server;
  private HamiComponents hami;
  private FakeDeviceManager dm;

  @BeforeEach
  void setUp() throws Exception {
    kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
    dm =
        new FakeDeviceManager(
            List.of(FakeDeviceManager.npu("U0", 0, 0), FakeDeviceManager.npu("U1", 1, 1)));
    HamiChipSettings chip =
        new HamiChipSettings(
            "910B3",
            "Ascend910B3",
            "huawei.com/Ascend910B3",
            65536,
            65536,
            20,
            List.of(
                new VnpuTemplate("vir05_1c_16g", 16384, 5, 1),
                new VnpuTemplate("vir10_3c_32g", 32768, 10, 3)));
    hami =
        new HamiComponents(
            client,
            dm,
            chip,
            HamiNodeSettings.defaults(false),
            HamiOptions.defaults(NODE)
                .withSoftSplit(
                    SoftSplitLayout.upstream(dir.resolve("hook"))
                        .withLimiterDir(
                            LimiterFixture.installInto(dir.resolve("limiter"))
                                .hostDir()
                                .toString()),
                    Optional.empty()),
            new MutableClock(Instant.parse("2026-07-24T10:15:30Z")),
            new RecordingScheduler());
    hami.start();
    server =
        DevicePluginServer.builder(hami.resourceManager(), kubelet.pluginDir())
            .socketName(new HamiNames(chip.commonWord()).socketName())
            .registerTimeout(WAIT)
            .build();
    // on a loaded machine the first registration may need a retry; the tests await it
    server.start();
  }

  @AfterEach
  void tearDown() throws Exception {
    server.stop();
    hami.close();
    kubelet.close();
  }

  @Test
  void registersAndRepublishesHealthBothWays() throws Exception {
    RegisterRequest r = kubelet.awaitRegistration(WAIT);
    assertThat(r.getResourceName()).isEqualTo("huawei.com/Ascend910B3");
    assertThat(r.getEndpoint()).isEqualTo("Ascend910B3.sock");
    try (PluginClient plugin = kubelet.connect(r);
        PluginClient.ListAndWatchRecorder law = plugin.listAndWatch()) {
      ListAndWatchResponse first = law.next(WAIT);
      assertThat(first.getDevicesList())
          .extracting(Device::getID)
          .containsExactly("U0-0", "U0-1", "U0-2", "U0-3", "U1-0", "U1-1", "U1-2", "U1-3");
      assertThat(first.getDevicesList()).extracting(Device::getHealth).containsOnly("Healthy");

      node(client, Map.of());
      dm.setHealth(1, DeviceHealth.fault(0x80E01801L, "fault code 0x80E01801"));
      hami.registerLoop().runOnce();
      ListAndWatchResponse bad = law.next(WAIT);
      assertThat(bad.getDevicesList())
          .filteredOn(d -> d.getID().startsWith("U1-"))
          .extracting(Device::getHealth)
          .containsOnly("Unhealthy");
      assertThat(nodeAnnotations(client).get("hami.io/node-register-Ascend910B3"))
          .contains(
              "{\"id\":\"U1\",\"index\":1,\"count\":4,\"devmem\":65536,\"devcore\":20,\"type\":\"Ascend910B3\",\"custominfo\"");

      dm.setHealth(1, DeviceHealth.HEALTHY);
      hami.registerLoop().runOnce();
      ListAndWatchResponse good = law.next(WAIT);
      assertThat(good.getDevicesList()).extracting(Device::getHealth).containsOnly("Healthy");
      assertThat(nodeAnnotations(client).get("hami.io/node-register-Ascend910B3"))
          .contains(
              "{\"id\":\"U1\",\"index\":1,\"count\":4,\"devmem\":65536,\"devcore\":20,\"type\":\"Ascend910B3\",\"health\":true");
    }
  }

  @Test
  void allocatesWholeHardSoftAndTwoContainersInOneCall() throws Exception {
    RegisterRequest r = kubelet.awaitRegistration(WAIT);
    node(client, Map.of("hami.io/mutex.lock", "2026-07-24T10:00:00Z,default,two"));
    pod(
        client,
        "two",
        1L,
        Map.of(
            "hami.io/Ascend910B3-devices-to-allocate",
                "U0,Ascend910B3,16384,0:;U1,Ascend910B3,65536,0:;",
            "huawei.com/Ascend910B3",
                "[{\"UUID\":\"U0\",\"temp\":\"vir05_1c_16g\",\"memory\":16384},{\"UUID\":\"U1\",\"memory\":65536}]"),
        List.of(),
        List.of("hard", "whole"));
    try (PluginClient plugin = kubelet.connect(r)) {
      AllocateResponse two = plugin.allocate(List.of(List.of("U0-0"), List.of("U1-0")));
      assertThat(two.getContainerResponses(0).getEnvsMap())
          .isEqualTo(Map.of("ASCEND_VISIBLE_DEVICES", "0", "ASCEND_VNPU_SPECS", "vir05_1c_16g"));
      assertThat(two.getContainerResponses(1).getEnvsMap())
          .isEqualTo(Map.of("ASCEND_VISIBLE_DEVICES", "1"));
      assertThat(podAnnotations(client, "two")).containsEntry("hami.io/bind-phase", "success");
      assertThat(nodeAnnotations(client)).doesNotContainKey("hami.io/mutex.lock");

      client
          .nodes()
          .withName(NODE)
          .edit(
              n -> {
                n.getMetadata()
                    .getAnnotations()
                    .put("hami.io/mutex.lock", "2026-07-24T10:01:00Z,default,soft");
                return n;
              });
      pod(
          client,
          "soft",
          2L,
          Map.of(
              "huawei.com/vnpu-mode",
              "hami-core",
              "hami.io/Ascend910B3-devices-to-allocate",
              "U1,Ascend910B3,28672,40:;",
              "huawei.com/Ascend910B3",
              "[{\"UUID\":\"U1\",\"memory\":28672,\"core\":40}]"),
          List.of(),
          List.of("main"));
      AllocateResponse soft = plugin.allocate(List.of(List.of("U1-1")));
      assertThat(soft.getContainerResponses(0).getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "1")
          .containsEntry("NPU_MEM_QUOTA", "28672")
          .containsEntry("NPU_PRIORITY", "40")
          .containsEntry("NPU_GLOBAL_SHM_PATH", "/hami-shared-region/1_global_registry")
          .containsEntry("NPU_LOCAL_SHM_PATH", "/hami-vnpu-shmem/vnpu_local_shmem");
      assertThat(soft.getContainerResponses(0).getMountsList()).hasSize(8);
      assertThat(soft.getContainerResponses(0).getMounts(5).getContainerPath())
          .isEqualTo("/etc/ld.so.preload");
      assertThat(podAnnotations(client, "soft")).containsEntry("hami.io/bind-phase", "success");

      // no pod left to bind: the kubelet gets an error naming the cause
      assertThatThrownBy(() -> plugin.allocate(List.of(List.of("U0-1"))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining("no binding pod found on node node-1");
    }
  }
}
