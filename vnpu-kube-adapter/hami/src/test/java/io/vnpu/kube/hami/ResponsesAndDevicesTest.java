package io.vnpu.kube.hami;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Priority;
import io.vnpu.api.model.VnpuTemplate;
import io.vnpu.api.slice.Mount;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.SharingPolicy;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.kube.hami.alloc.HardSplitResponses;
import io.vnpu.kube.hami.alloc.SoftSplitLayout;
import io.vnpu.kube.hami.alloc.SoftSplitResponses;
import io.vnpu.kube.hami.codec.ContainerDevice;
import io.vnpu.kube.hami.codec.RuntimeInfo;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.hami.config.VDeviceCount;
import io.vnpu.kube.hami.devices.NodeDevices;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.resource.PluginDevice;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Conformance vectors 4, 6 and 11 of protocol spec section 8. */
class ResponsesAndDevicesTest {
  private static final String KEY = "huawei.com/Ascend910";
  private static final NodeDevices NPUS =
      new NodeDevices(
          List.of(
              FakeDeviceManager.npu("uuid0", 0, 0),
              FakeDeviceManager.npu("uuid1", 1, 1),
              FakeDeviceManager.npu("uuid3", 2, 3)));

  // vector 4
  @Test
  void apiDevices() {
    NodeDevices one = new NodeDevices(List.of(FakeDeviceManager.npu("uuid1", 0, 0)));
    assertThat(one.pluginDevices(3))
        .containsExactly(
            new PluginDevice("uuid1-0", true, List.of()),
            new PluginDevice("uuid1-1", true, List.of()),
            new PluginDevice("uuid1-2", true, List.of()));
    assertThat(one.pluginDevices(0)).isEmpty();
    NodeDevices two =
        new NodeDevices(
            List.of(
                FakeDeviceManager.npu("uuid1", 0, 0),
                FakeDeviceManager.npu("uuid2", 1, 1).withHealth(DeviceHealth.unhealthy("fault"))));
    assertThat(two.pluginDevices(2))
        .containsExactly(
            new PluginDevice("uuid1-0", true, List.of()),
            new PluginDevice("uuid1-1", true, List.of()),
            new PluginDevice("uuid2-0", false, List.of()),
            new PluginDevice("uuid2-1", false, List.of()));
  }

  // vector 6, hard split
  @Test
  void hardSplitResponse() throws Exception {
    ContainerAllocation a =
        HardSplitResponses.build(
            List.of(dev("uuid3")), Map.of("uuid3", temp("uuid3", "vir01")), NPUS, KEY);
    assertThat(a.envs())
        .isEqualTo(Map.of("ASCEND_VISIBLE_DEVICES", "3", "ASCEND_VNPU_SPECS", "vir01"));
    assertThat(a.mounts()).isEmpty();
    assertThat(a.devices()).isEmpty();
    ContainerAllocation b =
        HardSplitResponses.build(
            List.of(dev("uuid0"), dev("uuid1")),
            Map.of("uuid0", temp("uuid0", "vir01"), "uuid1", temp("uuid1", "vir02")),
            NPUS,
            KEY);
    assertThat(b.envs())
        .isEqualTo(Map.of("ASCEND_VISIBLE_DEVICES", "0,1", "ASCEND_VNPU_SPECS", "vir01"));
    assertThat(
            HardSplitResponses.build(
                    List.of(dev("uuid3")), Map.of("uuid3", temp("uuid3", "")), NPUS, KEY)
                .envs())
        .isEqualTo(Map.of("ASCEND_VISIBLE_DEVICES", "3"));
    assertThat(HardSplitResponses.build(List.of(dev("uuid3")), Map.of(), NPUS, KEY).envs())
        .isEqualTo(Map.of("ASCEND_VISIBLE_DEVICES", "3"));
    assertThatThrownBy(() -> HardSplitResponses.build(List.of(), Map.of(), NPUS, KEY))
        .hasMessageContaining(KEY);
    assertThatThrownBy(() -> HardSplitResponses.build(List.of(dev("nope")), Map.of(), NPUS, KEY))
        .hasMessage("unknown uuid: nope");
  }

  // vector 6, hami-core
  @Test
  void softSplitResponse() throws Exception {
    SoftSplitLayout layout = SoftSplitLayout.upstream(Path.of(SoftSplitLayout.DEFAULT_HOOK_PATH));
    Path dir = layout.containerDir("u1", "c");
    assertThat(dir).isEqualTo(Path.of("/var/lib/vnpu/hami/containers/u1_c"));
    ContainerAllocation a =
        SoftSplitResponses.build(
            List.of(dev("uuid3")),
            Map.of("uuid3", new RuntimeInfo("uuid3", "", OptionalInt.of(16384), OptionalInt.of(4))),
            NPUS,
            KEY,
            layout,
            dir);
    assertThat(a.envs())
        .isEqualTo(
            Map.of(
                "ASCEND_VISIBLE_DEVICES",
                "3",
                "NPU_MEM_QUOTA",
                "16384",
                "NPU_PRIORITY",
                "4",
                "NPU_GLOBAL_SHM_PATH",
                "/hami-shared-region/3_global_registry",
                "NPU_LOCAL_SHM_PATH",
                "/hami-vnpu-shmem/vnpu_local_shmem"));
    assertThat(a.mounts())
        .containsExactly(
            new Mount("/usr/local/bin/npu-smi", "/usr/local/bin/npu-smi", true),
            new Mount("/etc/ascend_install.info", "/etc/ascend_install.info", true),
            new Mount(
                "/usr/local/Ascend/driver/lib64/driver",
                "/usr/local/Ascend/driver/lib64/driver",
                true),
            new Mount(
                "/usr/local/Ascend/driver/version.info",
                "/usr/local/Ascend/driver/version.info",
                true),
            new Mount("/hami-vnpu-core", "/usr/local/hami-vnpu-core", true),
            new Mount("/etc/ld.so.preload", "/usr/local/hami-vnpu-core/ld.so.preload", true),
            new Mount("/hami-shared-region", "/usr/local/hami-shared-region", false),
            new Mount("/hami-vnpu-shmem", "/var/lib/vnpu/hami/containers/u1_c", false));
    assertThat(a.envs()).doesNotContainKey("ASCEND_VNPU_SPECS");
    // when the agent creates the regions, the seventh mount is its compute-registry directory,
    // read-only
    ContainerAllocation ours =
        SoftSplitResponses.build(
            List.of(dev("uuid3")),
            Map.of("uuid3", new RuntimeInfo("uuid3", "", OptionalInt.of(16384), OptionalInt.of(4))),
            NPUS,
            KEY,
            layout,
            dir,
            true);
    assertThat(ours.mounts().get(6))
        .isEqualTo(new Mount("/hami-shared-region", "/var/lib/vnpu/hami/registry", true));
    assertThat(ours.mounts())
        .hasSize(8)
        .containsAll(
            a.mounts().stream()
                .filter(m -> !m.containerPath().equals("/hami-shared-region"))
                .toList());
    assertThat(ours.envs()).isEqualTo(a.envs());

    ContainerAllocation nil =
        SoftSplitResponses.build(
            List.of(dev("uuid3")),
            Map.of("uuid3", new RuntimeInfo("uuid3", "", OptionalInt.empty(), OptionalInt.empty())),
            NPUS,
            KEY,
            layout,
            dir);
    assertThat(nil.envs()).doesNotContainKeys("NPU_MEM_QUOTA", "NPU_PRIORITY");

    Map<String, RuntimeInfo> two =
        Map.of(
            "uuid0",
            new RuntimeInfo("uuid0", "", OptionalInt.of(32768), OptionalInt.of(8)),
            "uuid1",
            new RuntimeInfo("uuid1", "", OptionalInt.empty(), OptionalInt.empty()));
    ContainerAllocation b =
        SoftSplitResponses.build(List.of(dev("uuid0"), dev("uuid1")), two, NPUS, KEY, layout, dir);
    assertThat(b.envs())
        .containsEntry("ASCEND_VISIBLE_DEVICES", "0,1")
        .containsEntry("NPU_MEM_QUOTA", "32768")
        .containsEntry("NPU_PRIORITY", "8")
        .containsEntry("NPU_GLOBAL_SHM_PATH", "/hami-shared-region/0_global_registry");
  }

  @Test
  void hardPlansCarryTheDecision() throws Exception {
    var whole = HardSplitResponses.plan(List.of(dev("uuid0"), dev("uuid1")), Map.of(), NPUS, KEY);
    assertThat(whole.decision().devices())
        .containsExactly(
            new SliceDevice(new NpuRef(0, "uuid0"), new SliceShare.Whole()),
            new SliceDevice(new NpuRef(1, "uuid1"), new SliceShare.Whole()));
    assertThat(whole.vnpus()).isEmpty();
    var runtime =
        HardSplitResponses.plan(
            List.of(dev("uuid3")), Map.of("uuid3", temp("uuid3", "vir01")), NPUS, KEY);
    assertThat(runtime.decision().devices())
        .containsExactly(
            new SliceDevice(new NpuRef(3, "uuid3"), new SliceShare.HardTemplate("vir01")));
    var plugin =
        HardSplitResponses.pluginCreatesPlan(
            List.of(dev("uuid3")), Map.of("uuid3", temp("uuid3", "vir01")), NPUS, KEY);
    assertThat(plugin.vnpus()).extracting(v -> v.template()).containsExactly("vir01");
    assertThat(plugin.createdVnpuIdsEnv()).contains("ASCEND_VISIBLE_DEVICES");
    assertThat(plugin.edits().env()).isEqualTo(Map.of("ASCEND_RUNTIME_OPTIONS", "VIRTUAL"));
    assertThatThrownBy(
            () -> HardSplitResponses.plan(List.of(dev("uuid3"), dev("uuid3")), Map.of(), NPUS, KEY))
        .hasMessage("annotation " + KEY + ": device uuid3 is listed twice for the container");
  }

  /**
   * A soft quota whose core percent is both weight and cap (the HAMi core request is an upper
   * limit).
   */
  private static SliceDevice soft(int phyId, String uuid, long bytes, int corePct) {
    return new SliceDevice(
        new NpuRef(phyId, uuid),
        new SliceShare.SoftQuota(bytes, corePct, corePct, Priority.NORMAL));
  }

  @Test
  void softSplitQuotasArePerDevice() throws Exception {
    Map<String, RuntimeInfo> info =
        Map.of(
            "uuid0",
            new RuntimeInfo("uuid0", "", OptionalInt.of(32768), OptionalInt.of(8)),
            "uuid1",
            new RuntimeInfo("uuid1", "", OptionalInt.of(8192), OptionalInt.of(30)));
    List<SliceDevice> q =
        SoftSplitResponses.quotas(
            List.of(
                new ContainerDevice("uuid0", "Ascend910", 32768, 8),
                new ContainerDevice("uuid1", "Ascend910", 8192, 30)),
            info,
            NPUS,
            KEY);
    assertThat(q)
        .containsExactly(soft(0, "uuid0", 32768L << 20, 8), soft(1, "uuid1", 8192L << 20, 30));
    // RuntimeInfo may lower what devices-to-allocate charged
    assertThat(
            SoftSplitResponses.quotas(
                List.of(new ContainerDevice("uuid0", "Ascend910", 65536, 50)), info, NPUS, KEY))
        .containsExactly(soft(0, "uuid0", 32768L << 20, 8));
    // without RuntimeInfo memory the charged MiB of devices-to-allocate is the limit
    List<SliceDevice> fallback =
        SoftSplitResponses.quotas(
            List.of(new ContainerDevice("uuid3", "Ascend910", 4096, 25)), Map.of(), NPUS, KEY);
    assertThat(fallback).containsExactly(soft(3, "uuid3", 4096L << 20, 25));
    assertThatThrownBy(
            () ->
                SoftSplitResponses.quotas(
                    List.of(dev("uuid3")),
                    Map.of(
                        "uuid3",
                        new RuntimeInfo("uuid3", "", OptionalInt.of(-1), OptionalInt.empty())),
                    NPUS,
                    KEY))
        .hasMessageContaining(
            "device uuid3: annotation "
                + KEY
                + " memory = -1 MiB: a Kubernetes soft slice must be > 0 MiB");
    assertThatThrownBy(
            () ->
                SoftSplitResponses.quotas(
                    List.of(dev("uuid3")),
                    Map.of(
                        "uuid3",
                        new RuntimeInfo("uuid3", "", OptionalInt.of(1), OptionalInt.of(101))),
                    NPUS,
                    KEY))
        .hasMessageContaining(
            "device uuid3: annotation " + KEY + " core = 101: more than the 4 % AI Core");
  }

  // issue 28: HAMi has no policy key; vnpu.io/sharing-policy may only lower the fixed share HAMi
  // charges
  @Test
  void theSharingPolicyAnnotationMayOnlyLower() throws Exception {
    List<ContainerDevice> d = List.of(new ContainerDevice("uuid3", "Ascend910", 4096, 25));
    assertThat(
            SoftSplitResponses.quotas(
                d, Map.of(), NPUS, KEY, Optional.of(SharingPolicy.BEST_EFFORT)))
        .containsExactly(
            new SliceDevice(
                new NpuRef(3, "uuid3"),
                new SliceShare.SoftQuota(4096L << 20, 25, 25, Priority.NORMAL)
                    .withPolicy(SharingPolicy.BEST_EFFORT)));
    assertThat(
            SoftSplitResponses.quotas(
                    d, Map.of(), NPUS, KEY, Optional.of(SharingPolicy.FIXED_SHARE))
                .get(0)
                .softQuota()
                .policy())
        .contains(SharingPolicy.FIXED_SHARE);
    assertThatThrownBy(
            () ->
                SoftSplitResponses.quotas(
                    d, Map.of(), NPUS, KEY, Optional.of(SharingPolicy.ELASTIC)))
        .hasMessageContaining(
            "device uuid3: annotation "
                + KEY
                + " and vnpu.io/sharing-policy = elastic: borrowing"
                + " idle AI-core time beyond the 25 % the scheduler charged (devices-to-allocate) as fixed-share");
    assertThat(SoftSplitResponses.askedPolicy("pod ns/p", Map.of())).isEmpty();
    assertThat(
            SoftSplitResponses.askedPolicy(
                "pod ns/p", Map.of("vnpu.io/sharing-policy", "best-effort")))
        .contains(SharingPolicy.BEST_EFFORT);
    assertThatThrownBy(
            () ->
                SoftSplitResponses.askedPolicy("pod ns/p", Map.of("vnpu.io/sharing-policy", "max")))
        .hasMessage(
            "pod ns/p: annotation vnpu.io/sharing-policy = \"max\": not fixed-share, elastic or best-effort");
  }

  // vector 11
  @Test
  void vDeviceCount() {
    HamiChipSettings b4 =
        chip(
            List.of(
                new VnpuTemplate("vir05_1c_8g", 8192, 5, 1),
                new VnpuTemplate("vir10_3c_16g", 16384, 10, 3)));
    HamiChipSettings none = chip(List.of());
    assertThat(VDeviceCount.of(b4, HamiNodeSettings.defaults(false))).isEqualTo(4);
    assertThat(VDeviceCount.of(b4, node(0))).isEqualTo(4);
    assertThat(VDeviceCount.of(b4, node(8))).isEqualTo(8);
    assertThat(VDeviceCount.of(b4, node(2))).isEqualTo(2);
    assertThat(VDeviceCount.of(none, HamiNodeSettings.defaults(false))).isEqualTo(1);
    assertThat(VDeviceCount.of(none, node(5))).isEqualTo(5);
  }

  static HamiChipSettings chip(List<VnpuTemplate> templates) {
    return new HamiChipSettings(
        "910B4", "Ascend910B4", "huawei.com/Ascend910B4", 32768, 32768, 20, templates);
  }

  private static HamiNodeSettings node(int vcount) {
    return new HamiNodeSettings(false, vcount, Set.of(), Set.of());
  }

  private static ContainerDevice dev(String uuid) {
    return new ContainerDevice(uuid, "Ascend910", 1024, 4);
  }

  private static RuntimeInfo temp(String uuid, String t) {
    return new RuntimeInfo(uuid, t, OptionalInt.empty(), OptionalInt.empty());
  }
}
