package io.vnpu.kube.mindcluster;

import static io.vnpu.kube.mindcluster.PluginFleet.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.fault.FaultConfigs;
import io.vnpu.api.fault.FaultTracker;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.health.ChipUsage;
import io.vnpu.api.health.FaultNotifier;
import io.vnpu.api.model.Npu;
import io.vnpu.dcmi.fault.DcmiFaultProbe;
import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginClient;
import io.vnpu.kube.deviceplugin.v1beta1.Device;
import io.vnpu.kube.hami.MutableClock;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import io.vnpu.kube.mindcluster.kube.ConfigMapSeparationStore;
import io.vnpu.kube.mindcluster.kube.DeviceInfoConfigMap;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The device-info ConfigMap and the node labels (spec sections 3.6, 3.7) against the CRUD mock API
 * server, on the simulated 910B3x8 node with the fault engine as health source: exact content,
 * CheckCode recomputed here, write rate limits, {@code ManuallySeparateNPU} kept, and a chip fault
 * seen both in ListAndWatch and in the ConfigMap.
 */
@EnableKubernetesMockClient(crud = true)
class MindClusterConfigMapTest {
  private static final Instant T0 = Instant.parse("2026-07-24T10:15:30Z");
  private static final String CM = "mindx-dl-deviceinfo-node-1";
  private static final ObjectMapper JSON = new ObjectMapper();

  KubernetesClient client;

  @TempDir Path dir;

  private final MutableClock clock = new MutableClock(T0);
  private KubeletStandIn kubelet;
  private SimHost host;
  private HealthMonitor health;
  private MindClusterComponents components;
  private PluginFleet fleet;

  @BeforeEach
  void setUp() throws Exception {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("node-1")
                .addToLabels("servertype", "operator-set")
                .endMetadata()
                .build())
        .create();
    // an operator separated chip 5 before the plugin started
    client
        .configMaps()
        .inNamespace("kube-system")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(CM)
                .withNamespace("kube-system")
                .endMetadata()
                .addToData("ManuallySeparateNPU", "Ascend910-5")
                .build())
        .create();
    kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
    host = new SimHost("910B3x8", dir.resolve("sim"));
  }

  private void start(HealthMonitor monitor) throws Exception {
    health = monitor;
    health.pollOnce();
    components =
        new MindClusterComponents(
            MindClusterOptions.defaults("node-1").withRuntime(true, dir.resolve("host")),
            client,
            host.deviceManager,
            health,
            clock);
    components.start(null);
    fleet = new PluginFleet(kubelet, components.resourceManagers());
  }

  @AfterEach
  void tearDown() throws Exception {
    if (fleet != null) fleet.close();
    if (components != null) components.close();
    if (health != null) health.close();
    host.close();
    kubelet.close();
  }

  private ConfigMap cm() {
    return client.configMaps().inNamespace("kube-system").withName(CM).get();
  }

  private static String sha256(String s) throws Exception {
    return HexFormat.of()
        .formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void contentCheckCodeRateLimitsAndAFault() throws Exception {
    start(MindClusterRegistrationTest.healthOf(host, clock));
    ConfigMap first = cm();
    assertThat(first.getMetadata().getLabels()).containsEntry("mx-consumer-cim", "true");
    String expectedInfo =
        "{\"DeviceList\":{"
            + "\"huawei.com/Ascend910\":\"Ascend910-0,Ascend910-1,Ascend910-2,Ascend910-3,Ascend910-4,Ascend910-5,Ascend910-6,Ascend910-7\","
            + "\"huawei.com/Ascend910-Fault\":\"[]\","
            + "\"huawei.com/Ascend910-NetworkUnhealthy\":\"\","
            + "\"huawei.com/Ascend910-Recovering\":\"\","
            + "\"huawei.com/Ascend910-Unhealthy\":\"\"},"
            + "\"UpdateTime\":"
            + T0.getEpochSecond()
            + "}";
    assertThat(first.getData().get("DeviceInfoCfg"))
        .isEqualTo(
            "{\"DeviceInfo\":"
                + expectedInfo
                // 910B answers dcmi_spod_info with -8255: -2 (unknown), as upstream
                + ",\"SuperPodID\":-2,\"ServerIndex\":-2,\"CheckCode\":\""
                + sha256(expectedInfo)
                + "\"}");
    assertThat(first.getData())
        .containsEntry("ManuallySeparateNPU", "Ascend910-5")
        .containsEntry("UpgradeFaultReason", "{}")
        .containsKey("Description");

    // unchanged: not written again, however often asked, until five minutes have passed
    String rv = first.getMetadata().getResourceVersion();
    clock.advance(Duration.ofSeconds(10));
    components.refreshOnce();
    assertThat(cm().getMetadata().getResourceVersion()).isEqualTo(rv);
    clock.advance(Duration.ofMinutes(5));
    components.refreshOnce();
    assertThat(cm().getMetadata().getResourceVersion()).isNotEqualTo(rv);
    assertThat(cm().getData().get("DeviceInfoCfg"))
        .contains("\"UpdateTime\":" + T0.plusSeconds(310).getEpochSecond());

    try (PluginClient plugin = fleet.client("huawei.com/Ascend910");
        PluginClient.ListAndWatchRecorder law = plugin.listAndWatch()) {
      law.next(WAIT);
      // a fault within a second of the last write: ListAndWatch at once, the ConfigMap a second
      // later
      String before = cm().getMetadata().getResourceVersion();
      host.ctl("fault", "3", "0x80E01801");
      health.pollOnce();
      assertThat(law.next(WAIT).getDevicesList())
          .filteredOn(d -> d.getHealth().equals("Unhealthy"))
          .extracting(Device::getID)
          .containsExactly("Ascend910-3");
      assertThat(cm().getMetadata().getResourceVersion()).isEqualTo(before);
      clock.advance(Duration.ofSeconds(1));
      components.refreshOnce();
      JsonNode cfg = JSON.readTree(cm().getData().get("DeviceInfoCfg"));
      JsonNode list = cfg.get("DeviceInfo").get("DeviceList");
      assertThat(list.get("huawei.com/Ascend910").asString())
          .isEqualTo(
              "Ascend910-0,Ascend910-1,Ascend910-2,Ascend910-4,Ascend910-5,Ascend910-6,Ascend910-7");
      assertThat(list.get("huawei.com/Ascend910-Unhealthy").asString()).isEqualTo("Ascend910-3");
      long since = T0.plusSeconds(311).toEpochMilli();
      assertThat(list.get("huawei.com/Ascend910-Fault").asString())
          .isEqualTo(
              "[{\"fault_type\":\"CardUnhealthy\","
                  + "\"npu_name\":\"Ascend910-3\",\"large_model_fault_level\":\"RestartBusiness\",\"fault_level\":\"RestartBusiness\","
                  + "\"fault_handling\":\"RestartBusiness\",\"fault_code\":\"80E01801\",\"fault_time_and_level_map\":"
                  + "{\"80E01801\":{\"fault_time\":"
                  + (since - 1000)
                  + ",\"fault_level\":\"RestartBusiness\"}}}]");
      String info = cm().getData().get("DeviceInfoCfg");
      String infoJson =
          info.substring("{\"DeviceInfo\":".length(), info.indexOf(",\"SuperPodID\""));
      assertThat(cfg.get("CheckCode").asString()).isEqualTo(sha256(infoJson));
      assertThat(cm().getData()).containsEntry("ManuallySeparateNPU", "Ascend910-5");
    }
  }

  /**
   * A3 (spec 3.6, 3.7, 3.11): the super-pod membership the chips report ({@code dcmi_spod_info},
   * set with {@code vnpu-sim-ctl spod}; the simulator's sdid is {@code server << 16 | phy}) in the
   * node annotations and label, {@code DeviceInfoCfg} and the HCCL rank table, with upstream's
   * field names and JSON types (Ascend Operator decodes {@code super_pod_id}/{@code rack_id} as
   * int32, {@code server_index}/{@code super_device_id} as strings).
   */
  @Test
  void a3SuperPodIdsReachTheAnnotationsTheDeviceInfoAndTheRankTable() throws Exception {
    host.close();
    host = new SimHost("A3x8", dir.resolve("a3"));
    host.ctl("spod", "7", "3");
    start(MindClusterRegistrationTest.healthOf(host));
    var node = client.nodes().withName("node-1").get().getMetadata();
    assertThat(node.getAnnotations())
        .containsEntry("superPodID", "7")
        .containsEntry("serverIndex", "3")
        .containsEntry("serverType", "A3");
    assertThat(node.getLabels()).containsEntry("huawei.com/topotree.superpodid", "7");
    JsonNode base = JSON.readTree(node.getAnnotations().get("baseDeviceInfos"));
    assertThat(base.get("Ascend910-5").toString())
        .isEqualTo("{\"IP\":\"192.168.100.106\",\"SuperDeviceID\":" + ((3 << 16) | 5) + "}");
    JsonNode cfg = JSON.readTree(cm().getData().get("DeviceInfoCfg"));
    assertThat(cfg.get("SuperPodID").isInt()).isTrue();
    assertThat(cfg.get("SuperPodID").asInt()).isEqualTo(7);
    assertThat(cfg.get("ServerIndex").asInt()).isEqualTo(3);

    var chips = components.inventory().current();
    String table =
        io.vnpu.kube.mindcluster.volcano.RankTable.of(
            "job-0",
            "uid-0",
            "10.0.0.7",
            List.of(chips.byPhyId(4).orElseThrow(), chips.byPhyId(5).orElseThrow()),
            chips.superPod());
    JsonNode t = JSON.readTree(table);
    assertThat(t.propertyNames())
        .containsExactly(
            "pod_name",
            "server_id",
            "host_ip",
            "super_pod_id",
            "devices",
            "rack_id",
            "server_index",
            "server_ip");
    assertThat(t.get("super_pod_id").isInt()).isTrue();
    assertThat(t.get("super_pod_id").asInt()).isEqualTo(7);
    assertThat(t.get("rack_id").isInt()).isTrue();
    assertThat(t.get("server_index").isString()).isTrue();
    assertThat(t.get("server_index").asString()).isEqualTo("3");
    assertThat(t.get("devices").get(1).propertyNames())
        .containsExactly("device_id", "device_ip", "super_device_id");
    assertThat(t.get("devices").get(1).get("super_device_id").isString()).isTrue();
    assertThat(t.get("devices").get(1).get("super_device_id").asString())
        .isEqualTo(Integer.toString((3 << 16) | 5));
    assertThat(t.get("devices").get(0).get("device_id").asString()).isEqualTo("4");
  }

  @Test
  void nodeLabelsAndAnnotationsKeepTheOperatorsServertype() throws Exception {
    start(MindClusterRegistrationTest.healthOf(host));
    Map<String, String> labels = client.nodes().withName("node-1").get().getMetadata().getLabels();
    assertThat(labels)
        .containsEntry("servertype", "operator-set")
        .containsEntry("accelerator", "huawei-Ascend910")
        .containsEntry("node.kubernetes.io/npu.chip.name", "910B3")
        .containsEntry("mind-cluster/npu-chip-memory", "64G")
        .containsEntry("huawei.com/driver.version", "24.1.rc2")
        .doesNotContainKey("infer-card-type")
        .doesNotContainKey("accelerator-type");
    Map<String, String> a = client.nodes().withName("node-1").get().getMetadata().getAnnotations();
    assertThat(a)
        .containsEntry("cardType", "Ascend910B")
        .containsEntry("serverType", "")
        .containsEntry("superPodID", "-2")
        .containsEntry("serverIndex", "-2");
    assertThat(labels).doesNotContainKey("huawei.com/topotree.superpodid");
    assertThat(JSON.readTree(a.get("baseDeviceInfos")).propertyNames())
        .containsExactly(
            "Ascend910-0",
            "Ascend910-1",
            "Ascend910-2",
            "Ascend910-3",
            "Ascend910-4",
            "Ascend910-5",
            "Ascend910-6",
            "Ascend910-7");
    // the RoCE address of every chip (dcmi_get_device_ip; the profile's 192.168.100.(101 + phy))
    assertThat(JSON.readTree(a.get("baseDeviceInfos")).get("Ascend910-0").toString())
        .isEqualTo("{\"IP\":\"192.168.100.101\",\"SuperDeviceID\":0}");
    assertThat(JSON.readTree(a.get("baseDeviceInfos")).get("Ascend910-7").get("IP").asString())
        .isEqualTo("192.168.100.108");
    // an address configured later (IPv6 here) and one removed reach the annotation at the next
    // refresh
    host.ctl("ip", "3", "fd00:0:0:0:0:0:0:3");
    host.ctl("ip", "4", "none");
    components.refreshOnce();
    a = client.nodes().withName("node-1").get().getMetadata().getAnnotations();
    assertThat(JSON.readTree(a.get("baseDeviceInfos")).get("Ascend910-3").get("IP").asString())
        .isEqualTo("fd00::3");
    assertThat(JSON.readTree(a.get("baseDeviceInfos")).get("Ascend910-4").get("IP").asString())
        .isEmpty();

    client
        .nodes()
        .withName("node-1")
        .edit(
            n -> {
              n.getMetadata().getLabels().remove("servertype");
              return n;
            });
    components.close();
    components =
        new MindClusterComponents(
            MindClusterOptions.defaults("node-1"), client, host.deviceManager, health, clock);
    components.start(null);
    assertThat(client.nodes().withName("node-1").get().getMetadata().getLabels())
        .containsEntry("servertype", "Ascend910B-20");
  }

  @Test
  void manuallySeparatedChipsLiveInTheConfigMap() throws Exception {
    List<Npu> npus = host.deviceManager.discover();
    DeviceInfoConfigMap cmWriter =
        new DeviceInfoConfigMap(
            client,
            "node-1",
            clock,
            new io.vnpu.kube.mindcluster.kube.WriteLimiter(
                clock, Duration.ofSeconds(1), Duration.ofMinutes(5)));
    ConfigMapSeparationStore store = new ConfigMapSeparationStore(cmWriter, npus);
    HealthMonitor monitor =
        new HealthMonitor(
            new DcmiFaultProbe(host.deviceManager.dcmi(), clock),
            new FaultTracker(FaultConfigs.shippedDefault(), clock),
            store,
            ChipUsage.NONE,
            FaultNotifier.NONE,
            Duration.ofSeconds(5));
    assertThat(store.load()).containsExactly(5);
    start(monitor);
    try (PluginClient plugin = fleet.client("huawei.com/Ascend910");
        PluginClient.ListAndWatchRecorder law = plugin.listAndWatch()) {
      assertThat(law.next(WAIT).getDevicesList())
          .filteredOn(d -> d.getHealth().equals("Unhealthy"))
          .extracting(Device::getID)
          .containsExactly("Ascend910-5");
    }
    assertThat(cm().getData().get("DeviceInfoCfg"))
        .contains("\"huawei.com/Ascend910-Unhealthy\":\"Ascend910-5\"");
    store.save(Set.of(2, 5));
    assertThat(cm().getData()).containsEntry("ManuallySeparateNPU", "Ascend910-2,Ascend910-5");
    assertThat(cm().getData()).containsKey("DeviceInfoCfg");
  }
}
