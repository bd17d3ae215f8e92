package io.vnpu.kube.mindcluster;

import static io.vnpu.kube.mindcluster.PluginFleet.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.StatusRuntimeException;
import io.vnpu.api.fault.FaultConfigs;
import io.vnpu.api.fault.FaultTracker;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.health.ChipUsage;
import io.vnpu.api.health.FaultNotifier;
import io.vnpu.api.health.ManualSeparationStore;
import io.vnpu.dcmi.fault.DcmiFaultProbe;
import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginClient;
import io.vnpu.kube.deviceplugin.v1beta1.AllocateResponse;
import io.vnpu.kube.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vnpu.kube.deviceplugin.v1beta1.Device;
import io.vnpu.kube.deviceplugin.v1beta1.DeviceSpec;
import io.vnpu.kube.deviceplugin.v1beta1.Empty;
import io.vnpu.kube.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vnpu.kube.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MindCluster backend on the simulated {@code libdcmi.so} behind real gRPC device plugins,
 * driven by the kubelet stand-in: registration per device type, ListAndWatch with a chip fault, and
 * non-Volcano Allocate with and without the Ascend Docker Runtime, static vNPU presets and 310P
 * share mode (spec sections 3.2, 3.3, 3.9).
 */
@EnableKubernetesMockClient(crud = true)
class MindClusterRegistrationTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-07-24T10:15:30Z"), ZoneOffset.UTC);

  KubernetesClient client;

  @TempDir Path dir;

  private KubeletStandIn kubelet;
  private SimHost host;
  private MindClusterComponents components;
  private HealthMonitor health;
  private PluginFleet fleet;

  private void start(String profile, MindClusterOptions options) throws Exception {
    kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
    host = new SimHost(profile, dir.resolve("sim"));
    startComponents(options);
  }

  private void startComponents(MindClusterOptions options) throws Exception {
    health = healthOf(host);
    health.pollOnce();
    components = new MindClusterComponents(options, client, host.deviceManager, health, CLOCK);
    components.start(null);
    fleet = new PluginFleet(kubelet, components.resourceManagers());
  }

  /** The fault engine over the simulated driver, polled by the test. */
  static HealthMonitor healthOf(SimHost host) {
    return healthOf(host, CLOCK);
  }

  /** As {@link #healthOf(SimHost)} on another clock. */
  static HealthMonitor healthOf(SimHost host, Clock clock) {
    return new HealthMonitor(
        new DcmiFaultProbe(host.deviceManager.dcmi(), clock),
        new FaultTracker(FaultConfigs.shippedDefault(), clock),
        ManualSeparationStore.inMemory(),
        ChipUsage.NONE,
        FaultNotifier.NONE,
        Duration.ofSeconds(5));
  }

  @AfterEach
  void tearDown() throws Exception {
    if (fleet != null) fleet.close();
    if (components != null) components.close();
    if (health != null) health.close();
    if (host != null) host.close();
    if (kubelet != null) kubelet.close();
  }

  private MindClusterOptions options(boolean ascendDocker) {
    return MindClusterOptions.defaults("node-1").withRuntime(ascendDocker, dir.resolve("host"));
  }

  @Test
  void registersAscend910WithEightChipsOn910B3x8AndReportsAFault() throws Exception {
    start("910B3x8", options(true));
    assertThat(fleet.registrations.keySet()).containsExactly("huawei.com/Ascend910");
    assertThat(fleet.registrations.get("huawei.com/Ascend910").getEndpoint())
        .isEqualTo("Ascend910.sock");
    Path socket = kubelet.pluginDir().resolve("Ascend910.sock");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)))
        .isEqualTo("rw-------");
    assertThat(
            fleet
                .registrations
                .get("huawei.com/Ascend910")
                .getOptions()
                .getGetPreferredAllocationAvailable())
        .isFalse();

    try (PluginClient plugin = fleet.client("huawei.com/Ascend910");
        PluginClient.ListAndWatchRecorder law = plugin.listAndWatch()) {
      ListAndWatchResponse first = law.next(WAIT);
      assertThat(first.getDevicesList())
          .extracting(Device::getID)
          .containsExactly(
              "Ascend910-0",
              "Ascend910-1",
              "Ascend910-2",
              "Ascend910-3",
              "Ascend910-4",
              "Ascend910-5",
              "Ascend910-6",
              "Ascend910-7");
      assertThat(first.getDevicesList()).extracting(Device::getHealth).containsOnly("Healthy");
      assertThat(
              plugin
                  .blocking()
                  .getDevicePluginOptions(Empty.getDefaultInstance())
                  .getGetPreferredAllocationAvailable())
          .isFalse();
      assertThatThrownBy(
              () ->
                  plugin
                      .blocking()
                      .getPreferredAllocation(PreferredAllocationRequest.getDefaultInstance()))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining("UNIMPLEMENTED");

      host.ctl("fault", "3", "0x80E01801");
      health.pollOnce();
      ListAndWatchResponse bad = law.next(WAIT);
      assertThat(bad.getDevicesList())
          .filteredOn(d -> d.getHealth().equals("Unhealthy"))
          .extracting(Device::getID)
          .containsExactly("Ascend910-3");

      host.ctl("clear", "3");
      health.pollOnce();
      assertThat(law.next(WAIT).getDevicesList())
          .extracting(Device::getHealth)
          .containsOnly("Healthy");
    }
  }

  @Test
  void allocatesTheKubeletsChipWithTheAscendDockerRuntime() throws Exception {
    start("910B3x8", options(true));
    try (PluginClient plugin = fleet.client("huawei.com/Ascend910")) {
      AllocateResponse one = plugin.allocate(List.of(List.of("Ascend910-3")));
      assertThat(one.getContainerResponses(0).getEnvsMap())
          .isEqualTo(Map.of("ASCEND_VISIBLE_DEVICES", "3", "ASCEND_RUNTIME_OPTIONS", ""));
      assertThat(one.getContainerResponses(0).getDevicesList()).isEmpty();
      assertThat(one.getContainerResponses(0).getMountsList()).isEmpty();

      AllocateResponse two =
          plugin.allocate(List.of(List.of("Ascend910-6", "Ascend910-2"), List.of("Ascend910-0")));
      assertThat(two.getContainerResponses(0).getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "2,6");
      assertThat(two.getContainerResponses(1).getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "0");

      assertThatThrownBy(() -> plugin.allocate(List.of(List.of("Ascend910-9"))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining(
              "device Ascend910-9 is not a device of huawei.com/Ascend910 on this node");
    }
  }

  @Test
  void withoutTheRuntimeAnswersWithDeviceNodesThatExist() throws Exception {
    Path hostRoot = DevRoot.controlNodes(dir.resolve("host"));
    DevRoot.with(hostRoot, "davinci3", "dvpp_cmdlist");
    start("910B3x8", options(false));
    try (PluginClient plugin = fleet.client("huawei.com/Ascend910")) {
      ContainerAllocateResponse r =
          plugin.allocate(List.of(List.of("Ascend910-3"))).getContainerResponses(0);
      assertThat(r.getEnvsMap()).isEmpty();
      assertThat(r.getDevicesList())
          .extracting(
              DeviceSpec::getHostPath, DeviceSpec::getContainerPath, DeviceSpec::getPermissions)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(
                  hostRoot + "/dev/davinci_manager", "/dev/davinci_manager", "rw"),
              org.assertj.core.groups.Tuple.tuple(
                  hostRoot + "/dev/hisi_hdc", "/dev/hisi_hdc", "rw"),
              org.assertj.core.groups.Tuple.tuple(
                  hostRoot + "/dev/devmm_svm", "/dev/devmm_svm", "rw"),
              org.assertj.core.groups.Tuple.tuple(
                  hostRoot + "/dev/dvpp_cmdlist", "/dev/dvpp_cmdlist", "rw"),
              org.assertj.core.groups.Tuple.tuple(
                  hostRoot + "/dev/davinci3", "/dev/davinci3", "rw"));

      assertThatThrownBy(() -> plugin.allocate(List.of(List.of("Ascend910-4"))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining(
              "device node " + hostRoot.resolve("dev/davinci4") + " does not exist");
    }
  }

  @Test
  void staticVnpuPresetsAreTheirOwnResourcesAndHideTheirChip() throws Exception {
    kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
    host = new SimHost("910B3x8", dir.resolve("sim"));
    String v0 = host.ctl("create", "0", "vir10_3c_32g").trim();
    String v1 = host.ctl("create", "1", "vir05_1c_16g").trim();
    assertThat(v0).isEqualTo("100");
    assertThat(v1).isEqualTo("116");
    Path hostRoot = DevRoot.controlNodes(dir.resolve("host"));
    DevRoot.with(hostRoot, "vdavinci100");
    startComponents(options(false));

    assertThat(fleet.registrations.keySet())
        .containsExactlyInAnyOrder(
            "huawei.com/Ascend910",
            "huawei.com/Ascend910-10c.3cpu.32g",
            "huawei.com/Ascend910-5c.1cpu.16g");
    assertThat(fleet.registrations.get("huawei.com/Ascend910-10c.3cpu.32g").getEndpoint())
        .isEqualTo("Ascend910-10c.3cpu.32g.sock");
    try (PluginClient whole = fleet.client("huawei.com/Ascend910");
        PluginClient.ListAndWatchRecorder law = whole.listAndWatch();
        PluginClient vnpu = fleet.client("huawei.com/Ascend910-10c.3cpu.32g");
        PluginClient.ListAndWatchRecorder vlaw = vnpu.listAndWatch()) {
      assertThat(law.next(WAIT).getDevicesList())
          .extracting(Device::getID)
          .containsExactly(
              "Ascend910-2",
              "Ascend910-3",
              "Ascend910-4",
              "Ascend910-5",
              "Ascend910-6",
              "Ascend910-7");
      assertThat(vlaw.next(WAIT).getDevicesList())
          .extracting(Device::getID)
          .containsExactly("Ascend910-10c.3cpu.32g-100-0");

      ContainerAllocateResponse r =
          vnpu.allocate(List.of(List.of("Ascend910-10c.3cpu.32g-100-0"))).getContainerResponses(0);
      assertThat(r.getDevicesList())
          .last()
          .extracting(DeviceSpec::getHostPath, DeviceSpec::getContainerPath)
          .containsExactly(hostRoot + "/dev/vdavinci100", "/dev/davinci100");
    }
  }

  @Test
  void staticVnpuWithTheRuntimeIsVirtual() throws Exception {
    kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
    host = new SimHost("910B3x8", dir.resolve("sim"));
    host.ctl("create", "2", "vir05_1c_16g");
    startComponents(options(true));
    try (PluginClient vnpu = fleet.client("huawei.com/Ascend910-5c.1cpu.16g")) {
      assertThat(
              vnpu.allocate(List.of(List.of("Ascend910-5c.1cpu.16g-132-2")))
                  .getContainerResponses(0)
                  .getEnvsMap())
          .isEqualTo(Map.of("ASCEND_VISIBLE_DEVICES", "132", "ASCEND_RUNTIME_OPTIONS", "VIRTUAL"));
    }
  }

  @Test
  void shareModeOn310PAdvertisesCopiesPerChip() throws Exception {
    start("310P3x4", options(true).withShare(3, Optional.empty()));
    assertThat(fleet.registrations.keySet()).containsExactly("huawei.com/Ascend310P");
    try (PluginClient plugin = fleet.client("huawei.com/Ascend310P");
        PluginClient.ListAndWatchRecorder law = plugin.listAndWatch()) {
      assertThat(law.next(WAIT).getDevicesList())
          .extracting(Device::getID)
          .containsExactly(
              "Ascend310P-0-0",
              "Ascend310P-0-1",
              "Ascend310P-0-2",
              "Ascend310P-1-0",
              "Ascend310P-1-1",
              "Ascend310P-1-2",
              "Ascend310P-2-0",
              "Ascend310P-2-1",
              "Ascend310P-2-2",
              "Ascend310P-3-0",
              "Ascend310P-3-1",
              "Ascend310P-3-2");
      assertThat(
              plugin
                  .allocate(List.of(List.of("Ascend310P-2-1")))
                  .getContainerResponses(0)
                  .getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "2");
    }
  }

  @Test
  void shareModeIsRefusedOnA910Chip() throws Exception {
    kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
    host = new SimHost("910B3x8", dir.resolve("sim"));
    health = healthOf(host);
    MindClusterComponents c =
        new MindClusterComponents(
            options(true).withShare(2, Optional.empty()),
            client,
            host.deviceManager,
            health,
            CLOCK);
    assertThatThrownBy(() -> c.start(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "-shareDevCount=2: chip 910B3 (Ascend910B) cannot be shared; only 310P and 310B can"
                + " (or soft sharing with -shareDevCount=100 and -softShareDevConfigDir)");
  }
}
