package io.vnpu.kube.mindcluster;

import static io.vnpu.kube.mindcluster.PluginFleet.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginClient;
import io.vnpu.kube.deviceplugin.v1beta1.Device;
import io.vnpu.kube.hami.MutableClock;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Atlas 300I Duo cards under {@code -hotReset=0} (spec section 3.4): the two chips of a card reset
 * together, so a fault on one makes both unhealthy in ListAndWatch and in the ConfigMap's {@code
 * -Unhealthy} list, while the fault list names only the faulty chip. Without {@code -hotReset=0}
 * each chip stands alone.
 */
@EnableKubernetesMockClient(crud = true)
class MindClusterDuoCardTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String R = "huawei.com/Ascend310P";

  KubernetesClient client;

  @TempDir Path dir;

  private final MutableClock clock = new MutableClock(Instant.parse("2026-07-24T10:15:30Z"));
  private KubeletStandIn kubelet;
  private SimHost host;
  private HealthMonitor health;
  private MindClusterComponents components;
  private PluginFleet fleet;

  @BeforeEach
  void setUp() throws Exception {
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("node-1").endMetadata().build())
        .create();
    kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
    // 300IDuox2: card 0 holds logic 0 and 1 (phy 0, 1), card 64 logic 2 and 3 (phy 2, 3)
    host = new SimHost("300IDuox2", dir.resolve("sim"));
    health = MindClusterRegistrationTest.healthOf(host, clock);
    health.pollOnce();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (fleet != null) fleet.close();
    if (components != null) components.close();
    health.close();
    host.close();
    kubelet.close();
  }

  private void start(int hotReset) throws Exception {
    components =
        new MindClusterComponents(
            MindClusterOptions.defaults("node-1").withHotReset(hotReset),
            client,
            host.deviceManager,
            health,
            clock);
    components.start(null);
    fleet = new PluginFleet(kubelet, components.resourceManagers());
  }

  private JsonNode deviceList() {
    clock.advance(Duration.ofSeconds(2));
    components.publishDeviceInfo();
    return JSON.readTree(
            client
                .configMaps()
                .inNamespace("kube-system")
                .withName("mindx-dl-deviceinfo-node-1")
                .get()
                .getData()
                .get("DeviceInfoCfg"))
        .get("DeviceInfo")
        .get("DeviceList");
  }

  @Test
  void withHotResetZeroAFaultyChipTakesItsCardPeerDown() throws Exception {
    start(0);
    try (PluginClient plugin = fleet.client(R);
        PluginClient.ListAndWatchRecorder law = plugin.listAndWatch()) {
      assertThat(law.next(WAIT).getDevicesList())
          .extracting(Device::getHealth)
          .containsOnly("Healthy");
      host.ctl("fault", "1", "0x80E01801");
      health.pollOnce();
      assertThat(law.next(WAIT).getDevicesList())
          .extracting(Device::getID, Device::getHealth)
          .containsExactly(
              Tuple.tuple("Ascend310P-0", "Unhealthy"), Tuple.tuple("Ascend310P-1", "Unhealthy"),
              Tuple.tuple("Ascend310P-2", "Healthy"), Tuple.tuple("Ascend310P-3", "Healthy"));
      JsonNode list = deviceList();
      assertThat(list.get(R).asString()).isEqualTo("Ascend310P-2,Ascend310P-3");
      assertThat(list.get(R + "-Unhealthy").asString()).isEqualTo("Ascend310P-0,Ascend310P-1");
      JsonNode faults = JSON.readTree(list.get(R + "-Fault").asString());
      assertThat(faults).hasSize(1);
      assertThat(faults.get(0).get("npu_name").asString()).isEqualTo("Ascend310P-1");

      host.ctl("clear", "1");
      health.pollOnce();
      assertThat(law.next(WAIT).getDevicesList())
          .extracting(Device::getHealth)
          .containsOnly("Healthy");
      assertThat(deviceList().get(R + "-Unhealthy").asString()).isEmpty();
    }
  }

  @Test
  void withoutHotResetEachChipStandsAlone() throws Exception {
    start(-1);
    try (PluginClient plugin = fleet.client(R);
        PluginClient.ListAndWatchRecorder law = plugin.listAndWatch()) {
      law.next(WAIT);
      host.ctl("fault", "1", "0x80E01801");
      health.pollOnce();
      assertThat(law.next(WAIT).getDevicesList())
          .extracting(Device::getID, Device::getHealth)
          .containsExactly(
              Tuple.tuple("Ascend310P-0", "Healthy"), Tuple.tuple("Ascend310P-1", "Unhealthy"),
              Tuple.tuple("Ascend310P-2", "Healthy"), Tuple.tuple("Ascend310P-3", "Healthy"));
      assertThat(deviceList().get(R + "-Unhealthy").asString()).isEqualTo("Ascend310P-1");
    }
  }
}
