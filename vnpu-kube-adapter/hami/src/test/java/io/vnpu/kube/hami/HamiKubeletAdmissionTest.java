package io.vnpu.kube.hami;

import static io.vnpu.kube.hami.KubeFixtures.node;
import static io.vnpu.kube.hami.KubeFixtures.pod;
import static io.vnpu.kube.hami.KubeFixtures.podAnnotations;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.model.VnpuTemplate;
import io.vnpu.kube.deviceplugin.DevicePluginServer;
import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginClient;
import io.vnpu.kube.deviceplugin.v1beta1.RegisterRequest;
import io.vnpu.kube.hami.codec.HamiNames;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.metrics.MeasuredResourceManager;
import io.vnpu.kube.metrics.RequestMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pods admitted as the kubelet admits them (issue #25): the HAMi plugin advertises
 * GetPreferredAllocation, so the kubelet asks it before every Allocate of fewer devices than are
 * free and allocates the answer. The answer must name replicas of the NPUs HAMi's scheduler chose
 * ({@code hami.io/<cw>-devices-to-allocate}), not the first chips' replicas, or the kubelet's
 * accounting (pod-resources, which the hot reset reads) names chips the container does not have.
 * The plugin runs as the node agent serves it: behind the measuring wrapper.
 */
@EnableKubernetesMockClient(crud = true)
class HamiKubeletAdmissionTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  KubernetesClient client;

  @TempDir Path dir;

  private KubeletStandIn kubelet;
  private DevicePluginServer server;
  private HamiComponents hami;

  @BeforeEach
  void setUp() throws Exception {
    kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
    FakeDeviceManager dm =
        new FakeDeviceManager(
            List.of(
                FakeDeviceManager.npu("U0", 0, 0),
                FakeDeviceManager.npu("U1", 1, 1),
                FakeDeviceManager.npu("U2", 2, 2)));
    HamiChipSettings chip =
        new HamiChipSettings(
            "910B3",
            "Ascend910B3",
            "huawei.com/Ascend910B3",
            65536,
            65536,
            20,
            List.of(new VnpuTemplate("vir05_1c_16g", 16384, 5, 1)));
    hami =
        new HamiComponents(
            client,
            dm,
            chip,
            HamiNodeSettings.defaults(false),
            HamiOptions.defaults(KubeFixtures.NODE),
            new MutableClock(Instant.parse("2026-07-24T10:15:30Z")),
            new RecordingScheduler());
    hami.start();
    server =
        DevicePluginServer.builder(
                new MeasuredResourceManager(
                    hami.resourceManager(),
                    new RequestMetrics(
                        new io.prometheus.metrics.model.registry.PrometheusRegistry()),
                    System::nanoTime),
                kubelet.pluginDir())
            .socketName(new HamiNames(chip.commonWord()).socketName())
            .registerTimeout(WAIT)
            .build();
    server.start();
  }

  @AfterEach
  void tearDown() throws Exception {
    server.stop();
    hami.close();
    kubelet.close();
  }

  @Test
  void theKubeletIsPreferredTheChipsTheSchedulerChoseForEachContainer() throws Exception {
    RegisterRequest r = kubelet.awaitRegistration(WAIT);
    node(client, Map.of("hami.io/mutex.lock", "2026-07-24T10:00:00Z,default,two"));
    pod(
        client,
        "two",
        1L,
        Map.of(
            "hami.io/Ascend910B3-devices-to-allocate",
            "U2,Ascend910B3,16384,0:;U1,Ascend910B3,65536,0:U0,Ascend910B3,65536,0:;",
            "huawei.com/Ascend910B3",
            "[{\"UUID\":\"U2\",\"temp\":\"vir05_1c_16g\",\"memory\":16384},"
                + "{\"UUID\":\"U1\",\"memory\":65536},{\"UUID\":\"U0\",\"memory\":65536}]"),
        List.of(),
        List.of("hard", "whole"));
    try (PluginClient plugin = kubelet.connect(r)) {
      plugin.assertAdvertisedOptionsServed(r);
      // the kubelet's own pick would be the first free replicas; it asks the plugin first
      assertThat(plugin.admit(List.of("U0-0")).getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "2")
          .containsEntry("ASCEND_VNPU_SPECS", "vir05_1c_16g");
      assertThat(plugin.admit(List.of("U0-1", "U0-2")).getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "1,0");
      assertThat(plugin.preferredRequests()).hasSize(2);
      assertThat(plugin.admissions()).hasSize(2);
      assertThat(plugin.admissions().get(0)).singleElement().asString().startsWith("U2-");
      assertThat(plugin.admissions().get(1))
          .hasSize(2)
          .anySatisfy(id -> assertThat(id).startsWith("U1-"))
          .anySatisfy(id -> assertThat(id).startsWith("U0-"));
      assertThat(podAnnotations(client, "two")).containsEntry("hami.io/bind-phase", "success");
    }
  }

  @Test
  void withoutAPendingPodThePreferenceSpreadsAndTheAllocateNamesTheCause() throws Exception {
    RegisterRequest r = kubelet.awaitRegistration(WAIT);
    node(client, Map.of());
    try (PluginClient plugin = kubelet.connect(r)) {
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> plugin.admit(List.of("U0-0", "U0-1")))
          .hasMessageContaining("no binding pod found on node node-1");
      assertThat(plugin.preferredRequests()).hasSize(1);
    }
  }
}
