package io.vnpu.kube.mindcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.dcmi.DcmiLibrarySource;
import io.vnpu.dcmi.LingQuSwitch;
import io.vnpu.kube.hami.MutableClock;
import io.vnpu.kube.mindcluster.kube.DeviceInfoConfigMap;
import io.vnpu.kube.mindcluster.kube.SwitchFaultLevels;
import io.vnpu.kube.mindcluster.kube.SwitchInfoPublisher;
import io.vnpu.kube.mindcluster.kube.WriteLimiter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * A3: a switch fault injected with {@code vnpu-sim-ctl} reaches {@code SwitchInfoCfg} of the
 * device-info ConfigMap through the simulated {@code liblingqu-dcmi.so}, other keys kept; the
 * super-pod membership from {@code dcmi_spod_info} reaches {@code DeviceInfoCfg}.
 */
@EnableKubernetesMockClient(crud = true)
class SwitchInfoPublisherTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CM = "mindx-dl-deviceinfo-node-1";

  KubernetesClient client;

  @TempDir Path dir;

  @Test
  void aSwitchFaultReachesSwitchInfoCfgAndGoesWithIt() throws Exception {
    try (SimHost host = new SimHost("A3x8", dir)) {
      client
          .configMaps()
          .inNamespace("kube-system")
          .resource(
              new ConfigMapBuilder()
                  .withNewMetadata()
                  .withName(CM)
                  .withNamespace("kube-system")
                  .endMetadata()
                  .addToData("ManuallySeparateNPU", "Ascend910-3")
                  .build())
          .create();
      MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
      DeviceInfoConfigMap cm =
          new DeviceInfoConfigMap(
              client,
              "node-1",
              clock,
              new WriteLimiter(clock, WriteLimiter.MIN_GAP, WriteLimiter.REFRESH));
      Path lib = host.deviceManager.dcmi().path();
      LingQuSwitch sw =
          LingQuSwitch.open(new DcmiLibrarySource(lib, "test", List.of(lib))).orElseThrow();
      SwitchInfoPublisher publisher =
          new SwitchInfoPublisher(sw, SwitchFaultLevels.shipped(), cm, clock);

      assertThat(publisher.publishOnce()).isTrue();
      assertThat(switchInfo().path("NodeStatus").asText()).isEqualTo("Healthy");
      assertThat(publisher.publishOnce()).as("nothing changed: not written again").isFalse();

      host.ctl("switch-fault", "2", "6", "9", "0", "3", "1");
      assertThat(publisher.publishOnce()).isTrue();
      JsonNode info = switchInfo();
      assertThat(info.path("FaultCode").get(0).path("AssembledFaultCode").asText())
          .isEqualTo("[0x00f1ff06,155911,npu,na]");
      assertThat(info.path("FaultCode").get(0).path("SwitchChipId").asInt()).isEqualTo(2);
      assertThat(info.path("FaultLevel").asText()).isEqualTo("Separate");
      assertThat(info.path("NodeStatus").asText()).isEqualTo("UnHealthy");
      assertThat(client.configMaps().inNamespace("kube-system").withName(CM).get().getData())
          .containsEntry("ManuallySeparateNPU", "Ascend910-3");

      host.ctl("switch-recover", "2", "6", "9", "0");
      clock.advance(java.time.Duration.ofSeconds(2));
      assertThat(publisher.publishOnce()).isTrue();
      assertThat(switchInfo().path("FaultCode")).isEmpty();

      host.ctl("spod", "5", "2");
      var chips =
          new io.vnpu.kube.mindcluster.devices.ChipInventory(
                  host.deviceManager, MindClusterRegistrationTest.healthOf(host))
              .refresh();
      cm.publish(chips, java.util.Set.of());
      JsonNode cfg =
          JSON.readTree(
              client
                  .configMaps()
                  .inNamespace("kube-system")
                  .withName(CM)
                  .get()
                  .getData()
                  .get("DeviceInfoCfg"));
      assertThat(cfg.path("SuperPodID").asInt()).isEqualTo(5);
      assertThat(cfg.path("ServerIndex").asInt()).isEqualTo(2);
    }
  }

  private JsonNode switchInfo() throws Exception {
    return JSON.readTree(
        client
            .configMaps()
            .inNamespace("kube-system")
            .withName(CM)
            .get()
            .getData()
            .get("SwitchInfoCfg"));
  }
}
