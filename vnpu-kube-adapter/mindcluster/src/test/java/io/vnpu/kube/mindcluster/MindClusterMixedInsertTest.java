package io.vnpu.kube.mindcluster;

import static io.vnpu.kube.mindcluster.PluginFleet.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginClient;
import io.vnpu.kube.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vnpu.kube.deviceplugin.v1beta1.Device;
import io.vnpu.kube.deviceplugin.v1beta1.DeviceSpec;
import io.vnpu.kube.hami.MutableClock;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * {@code -use310PMixedInsert=true} (spec section 3.2) on the simulated {@code 310PMixedx4} host
 * (cards Atlas 300V Pro, 300V, 300I Pro, 300V Pro; only {@code dcmi_get_product_type} tells them
 * apart): one device type per product, no vNPUs, DeviceSpecs even with the Ascend Docker Runtime,
 * the device-info ConfigMap under the mixed names, and the refusal on a node with other products;
 * with them, the labels other inference cards give a node (Atlas 300I Duo, Atlas 300I A2).
 */
@EnableKubernetesMockClient(crud = true)
class MindClusterMixedInsertTest {
  private static final ObjectMapper JSON = new ObjectMapper();

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
  }

  @AfterEach
  void tearDown() throws Exception {
    if (fleet != null) fleet.close();
    if (components != null) components.close();
    if (health != null) health.close();
    if (host != null) host.close();
    kubelet.close();
  }

  /** Mixed insertion with the Ascend Docker Runtime present (ASCEND_DOCKER_RUNTIME=True). */
  private MindClusterOptions mixed() {
    return MindClusterOptions.defaults("node-1")
        .withRuntime(true, dir.resolve("host"))
        .withMixedInsert(true);
  }

  private void start(String profile) throws Exception {
    host = new SimHost(profile, dir.resolve("sim"));
    health = MindClusterRegistrationTest.healthOf(host, clock);
    health.pollOnce();
    components = new MindClusterComponents(mixed(), client, host.deviceManager, health, clock);
  }

  @Test
  void eachCardProductIsItsOwnResourceWithDeviceNodesAndTheConfigMapUsesTheMixedNames()
      throws Exception {
    Path hostRoot = DevRoot.with(DevRoot.controlNodes(dir.resolve("host")), "davinci0", "davinci3");
    start("310PMixedx4");
    // a static vNPU on the 300V card: mixed insertion has no virtual instances, the chip stays
    // whole
    assertThat(host.ctl("create", "1", "vir02").trim()).isEqualTo("116");
    components.start(null);
    fleet = new PluginFleet(kubelet, components.resourceManagers());

    assertThat(fleet.registrations.keySet())
        .containsExactlyInAnyOrder(
            "huawei.com/Ascend310P-VPro", "huawei.com/Ascend310P-V", "huawei.com/Ascend310P-IPro");
    assertThat(fleet.registrations.get("huawei.com/Ascend310P-VPro").getEndpoint())
        .isEqualTo("Ascend310P-VPro.sock");
    try (PluginClient vpro = fleet.client("huawei.com/Ascend310P-VPro");
        PluginClient.ListAndWatchRecorder law = vpro.listAndWatch();
        PluginClient v = fleet.client("huawei.com/Ascend310P-V");
        PluginClient.ListAndWatchRecorder vlaw = v.listAndWatch();
        PluginClient ipro = fleet.client("huawei.com/Ascend310P-IPro");
        PluginClient.ListAndWatchRecorder ilaw = ipro.listAndWatch()) {
      assertThat(law.next(WAIT).getDevicesList())
          .extracting(Device::getID)
          .containsExactly("Ascend310P-VPro-0", "Ascend310P-VPro-3");
      assertThat(vlaw.next(WAIT).getDevicesList())
          .extracting(Device::getID)
          .containsExactly("Ascend310P-V-1");
      assertThat(ilaw.next(WAIT).getDevicesList())
          .extracting(Device::getID)
          .containsExactly("Ascend310P-IPro-2");

      // the runtime is installed, yet mixed insertion answers with device nodes (as upstream)
      ContainerAllocateResponse r =
          vpro.allocate(List.of(List.of("Ascend310P-VPro-3", "Ascend310P-VPro-0")))
              .getContainerResponses(0);
      assertThat(r.getEnvsMap()).isEmpty();
      assertThat(r.getDevicesList())
          .extracting(DeviceSpec::getHostPath, DeviceSpec::getContainerPath)
          .containsExactly(
              Tuple.tuple(hostRoot + "/dev/davinci_manager", "/dev/davinci_manager"),
              Tuple.tuple(hostRoot + "/dev/hisi_hdc", "/dev/hisi_hdc"),
              Tuple.tuple(hostRoot + "/dev/devmm_svm", "/dev/devmm_svm"),
              Tuple.tuple(hostRoot + "/dev/davinci0", "/dev/davinci0"),
              Tuple.tuple(hostRoot + "/dev/davinci3", "/dev/davinci3"));
      assertThat(hostRoot.resolve("dev/davinci3")).exists();
      assertThatThrownBy(() -> vpro.allocate(List.of(List.of("Ascend310P-V-1"))))
          .hasMessageContaining(
              "device Ascend310P-V-1 is not a device of huawei.com/Ascend310P-VPro on this node");

      // a fault on the 300I Pro card: ListAndWatch of its resource and the ConfigMap under its
      // mixed name
      host.ctl("fault", "2", "0x80E01801");
      health.pollOnce();
      assertThat(ilaw.next(WAIT).getDevicesList())
          .extracting(Device::getID, Device::getHealth)
          .containsExactly(Tuple.tuple("Ascend310P-IPro-2", "Unhealthy"));
      clock.advance(java.time.Duration.ofSeconds(2));
      components.publishDeviceInfo();
      JsonNode cfg =
          JSON.readTree(
              client
                  .configMaps()
                  .inNamespace("kube-system")
                  .withName("mindx-dl-deviceinfo-node-1")
                  .get()
                  .getData()
                  .get("DeviceInfoCfg"));
      JsonNode list = cfg.get("DeviceInfo").get("DeviceList");
      // upstream lists free chips only under the whole-310P type, which mixed insertion does not
      // use
      assertThat(list.get("huawei.com/Ascend310P").asString()).isEmpty();
      assertThat(list.get("huawei.com/Ascend310P-Unhealthy").asString())
          .isEqualTo("Ascend310P-IPro-2");
      assertThat(
              JSON.readTree(list.get("huawei.com/Ascend310P-Fault").asString())
                  .get(0)
                  .get("npu_name")
                  .asString())
          .isEqualTo("Ascend310P-IPro-2");
      assertThat(list.size()).isEqualTo(3);
    }
    assertThat(client.nodes().withName("node-1").get().getMetadata().getLabels())
        .containsEntry("accelerator", "huawei-Ascend310P")
        .doesNotContainKey("infer-card-type");
    Map<String, String> annotations =
        client.nodes().withName("node-1").get().getMetadata().getAnnotations();
    assertThat(JSON.readTree(annotations.get("baseDeviceInfos")).propertyNames())
        .containsExactly(
            "Ascend310P-IPro-2", "Ascend310P-V-1", "Ascend310P-VPro-0", "Ascend310P-VPro-3");
    assertThat(
            JSON.readTree(annotations.get("baseDeviceInfos"))
                .get("Ascend310P-V-1")
                .get("IP")
                .asString())
        .isEmpty();
  }

  @Test
  void aNodeWithAnotherProductRefusesTheFlagNamingChipAndProduct() throws Exception {
    start("300IDuox2");
    assertThatThrownBy(() -> components.start(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "-use310PMixedInsert=true: chip 310P3 (phy ID 0) is on product 'Atlas 300I Duo'; "
                + "mixed insertion takes only 310P cards Atlas 300I Pro, Atlas 300V, Atlas 300V Pro");
  }

  @Test
  void aServerWithoutProductTypeRefusesTheFlag() throws Exception {
    start("910B3x8");
    assertThatThrownBy(() -> components.start(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "-use310PMixedInsert=true: chip 910B3 (phy ID 0) is on product ''; "
                + "mixed insertion takes only 310P cards Atlas 300I Pro, Atlas 300V, Atlas 300V Pro");
  }

  @Test
  void aNodeOfAtlas300IDuoCardsIsLabelledSo() throws Exception {
    host = new SimHost("300IDuox2", dir.resolve("sim"));
    health = MindClusterRegistrationTest.healthOf(host, clock);
    health.pollOnce();
    components =
        new MindClusterComponents(
            MindClusterOptions.defaults("node-1"), client, host.deviceManager, health, clock);
    components.start(null);
    assertThat(client.nodes().withName("node-1").get().getMetadata().getLabels())
        .containsEntry("infer-card-type", "card-300i-duo")
        .containsEntry("huawei.com/driver.version", "24.1.rc2")
        .containsEntry("accelerator", "huawei-Ascend310P")
        .containsEntry("servertype", "Ascend310P-8");
  }

  @Test
  void atlas300IA2CardsLabelTheNodeAsA910BInferenceNode() throws Exception {
    host = new SimHost("300IA2x4", dir.resolve("sim"));
    health = MindClusterRegistrationTest.healthOf(host, clock);
    health.pollOnce();
    components =
        new MindClusterComponents(
            MindClusterOptions.defaults("node-1"), client, host.deviceManager, health, clock);
    components.start(null);
    assertThat(client.nodes().withName("node-1").get().getMetadata().getLabels())
        .containsEntry("accelerator-type", "card-910b-infer")
        .containsEntry("accelerator", "huawei-Ascend910")
        .containsEntry("servertype", "Ascend910B-20")
        .doesNotContainKey("infer-card-type");
  }

  @Test
  void withoutTheFlagTheSameHostIsOneAscend310PResource() throws Exception {
    host = new SimHost("310PMixedx4", dir.resolve("sim"));
    health = MindClusterRegistrationTest.healthOf(host, clock);
    health.pollOnce();
    components =
        new MindClusterComponents(
            MindClusterOptions.defaults("node-1").withRuntime(true, dir.resolve("host")),
            client,
            host.deviceManager,
            health,
            clock);
    components.start(null);
    assertThat(components.resourceManagers())
        .extracting(m -> m.resourceName())
        .containsExactly("huawei.com/Ascend310P");
    assertThat(components.inventory().current().chips())
        .extracting(c -> c.name())
        .containsExactly("Ascend310P-0", "Ascend310P-1", "Ascend310P-2", "Ascend310P-3");
  }
}
