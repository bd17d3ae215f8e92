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
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Priority;
import io.vnpu.api.model.VnpuTemplate;
import io.vnpu.api.slice.Mount;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.kube.hami.alloc.HardSplitStrategy;
import io.vnpu.kube.hami.alloc.SoftSplitLayout;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.limiter.LimiterFixture;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.resource.QuotaRegionFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Allocate against the fabric8 mock API server in CRUD mode: conformance vector 5 with its exact
 * strings, plus pod finding (lock and fallback), multi-container binds, two pending pods, whole
 * card, hard split with vNPU creation, and soft split with a quota region.
 */
@EnableKubernetesMockClient(crud = true)
class HamiAllocateMockServerTest {
  static final String LOCK = "2024-01-01T00:00:00Z,default,test-pod";

  KubernetesClient client;

  @TempDir Path hookPath;

  @TempDir Path limiterRoot;

  private final List<String> regionLog = new ArrayList<>();

  private HamiComponents rig(List<Npu> npus, HamiNodeSettings node, HamiOptions options) {
    HamiChipSettings chip =
        new HamiChipSettings(
            "910A",
            "Ascend910",
            "huawei.com/Ascend910",
            32768,
            32768,
            30,
            List.of(
                new VnpuTemplate("vir08", 8738, 8, 0), new VnpuTemplate("vir16", 17476, 16, 0)));
    HamiComponents c =
        new HamiComponents(
            client,
            new FakeDeviceManager(npus),
            chip,
            node,
            options,
            new MutableClock(Instant.parse("2026-07-24T10:15:30Z")),
            new RecordingScheduler());
    c.inventory().refresh();
    return c;
  }

  private HamiComponents rig(List<Npu> npus) {
    return rig(npus, HamiNodeSettings.defaults(false), HamiOptions.defaults(NODE));
  }

  private static List<Npu> uuid1AtPhy3() {
    return List.of(FakeDeviceManager.npu("uuid1", 0, 3, "910A"));
  }

  private static Map<String, String> oneContainer(String runtimeInfo) {
    return runtimeInfo == null
        ? Map.of("hami.io/Ascend910-devices-to-allocate", "uuid1,Ascend910,1024,4:;")
        : Map.of(
            "hami.io/Ascend910-devices-to-allocate",
            "uuid1,Ascend910,1024,4:;",
            "huawei.com/Ascend910",
            runtimeInfo);
  }

  // vector 5: single container
  @Test
  void allocatesLockedPodAndReleasesLock() throws Exception {
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(
        client,
        "test-pod",
        1700000000L,
        oneContainer("[{\"UUID\":\"uuid1\",\"temp\":\"vir01\"}]"),
        List.of(),
        List.of("main"));
    ContainerAllocation a = rig(uuid1AtPhy3()).resourceManager().allocate(List.of("uuid1-0"));
    assertThat(a.envs())
        .isEqualTo(Map.of("ASCEND_VISIBLE_DEVICES", "3", "ASCEND_VNPU_SPECS", "vir01"));
    assertThat(nodeAnnotations(client)).doesNotContainKey("hami.io/mutex.lock");
    assertThat(podAnnotations(client, "test-pod"))
        .containsEntry("hami.io/bind-phase", "success")
        .containsEntry("hami.io/Ascend910-devices-to-allocate", ";");
  }

  // vector 5: two containers; bug 9.1: success and lock release only after the last one
  @Test
  void twoContainerPodSucceedsOnlyAfterLastContainer() throws Exception {
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(
        client,
        "test-pod",
        1700000000L,
        Map.of(
            "hami.io/Ascend910-devices-to-allocate",
                "uuid1,Ascend910,1024,4:;uuid2,Ascend910,2048,8:;",
            "huawei.com/Ascend910",
                "[{\"UUID\":\"uuid1\",\"temp\":\"vir01\"},{\"UUID\":\"uuid2\",\"temp\":\"vir02\"}]"),
        List.of(),
        List.of("a", "b"));
    HamiResourceManager rm =
        rig(List.of(
                FakeDeviceManager.npu("uuid1", 0, 0, "910A"),
                FakeDeviceManager.npu("uuid2", 1, 1, "910A")))
            .resourceManager();
    ContainerAllocation first = rm.allocate(List.of("uuid1-0"));
    assertThat(first.envs())
        .isEqualTo(Map.of("ASCEND_VISIBLE_DEVICES", "0", "ASCEND_VNPU_SPECS", "vir01"));
    assertThat(podAnnotations(client, "test-pod"))
        .containsEntry("hami.io/bind-phase", "allocating")
        .containsEntry("hami.io/Ascend910-devices-to-allocate", ";uuid2,Ascend910,2048,8:;");
    assertThat(nodeAnnotations(client)).containsEntry("hami.io/mutex.lock", LOCK);
    ContainerAllocation second = rm.allocate(List.of("uuid2-0"));
    assertThat(second.envs())
        .isEqualTo(Map.of("ASCEND_VISIBLE_DEVICES", "1", "ASCEND_VNPU_SPECS", "vir02"));
    assertThat(podAnnotations(client, "test-pod"))
        .containsEntry("hami.io/bind-phase", "success")
        .containsEntry("hami.io/Ascend910-devices-to-allocate", ";;");
    assertThat(nodeAnnotations(client)).doesNotContainKey("hami.io/mutex.lock");
  }

  // HAMi schedulers before their PR #1012: ",,0,0:" for a container that asks for nothing
  @Test
  void aTrailingEmptyContainerEntryOfAnOlderSchedulerStillReachesSuccess() throws Exception {
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(
        client,
        "test-pod",
        1700000000L,
        Map.of(
            "hami.io/Ascend910-devices-to-allocate", "uuid1,Ascend910,1024,4:;,,0,0:;",
            "huawei.com/Ascend910", "[{\"UUID\":\"uuid1\",\"temp\":\"vir01\"}]"),
        List.of(),
        List.of("main", "sidecar"));
    ContainerAllocation a = rig(uuid1AtPhy3()).resourceManager().allocate(List.of("uuid1-0"));
    assertThat(a.envs())
        .isEqualTo(Map.of("ASCEND_VISIBLE_DEVICES", "3", "ASCEND_VNPU_SPECS", "vir01"));
    assertThat(podAnnotations(client, "test-pod"))
        .containsEntry("hami.io/bind-phase", "success")
        .containsEntry("hami.io/Ascend910-devices-to-allocate", ";;");
    assertThat(nodeAnnotations(client)).doesNotContainKey("hami.io/mutex.lock");
  }

  // vector 5: error cases
  @Test
  void deviceCountMismatchFailsBindAndReleasesLock() {
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(
        client,
        "test-pod",
        1L,
        Map.of(
            "hami.io/Ascend910-devices-to-allocate",
            "uuid1,Ascend910,1024,4:uuid2,Ascend910,1024,4:;",
            "huawei.com/Ascend910",
            "[{\"UUID\":\"uuid1\"}]"),
        List.of(),
        List.of("main"));
    assertThatThrownBy(() -> rig(uuid1AtPhy3()).resourceManager().allocate(List.of("uuid1-0")))
        .isInstanceOf(AllocationException.class)
        .hasMessageContaining("device number not matched: annotation has 2, request has 1");
    assertThat(podAnnotations(client, "test-pod")).containsEntry("hami.io/bind-phase", "failed");
    assertThat(nodeAnnotations(client)).doesNotContainKey("hami.io/mutex.lock");
  }

  @Test
  void unknownUuidFails() {
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(
        client,
        "test-pod",
        1L,
        Map.of(
            "hami.io/Ascend910-devices-to-allocate",
            "uuid9,Ascend910,1024,4:;",
            "huawei.com/Ascend910",
            "[{\"UUID\":\"uuid9\",\"temp\":\"vir01\"}]"),
        List.of(),
        List.of("main"));
    assertThatThrownBy(() -> rig(uuid1AtPhy3()).resourceManager().allocate(List.of("uuid1-0")))
        .hasMessageContaining("unknown uuid: uuid9");
    assertThat(podAnnotations(client, "test-pod")).containsEntry("hami.io/bind-phase", "failed");
    assertThat(nodeAnnotations(client)).doesNotContainKey("hami.io/mutex.lock");
  }

  @Test
  void missingRuntimeInfoFailsAndReleasesLock() {
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(client, "test-pod", 1L, oneContainer(null), List.of(), List.of("main"));
    assertThatThrownBy(() -> rig(uuid1AtPhy3()).resourceManager().allocate(List.of("uuid1-0")))
        .hasMessageContaining("annotation")
        .hasMessageContaining("huawei.com/Ascend910 not set");
    assertThat(nodeAnnotations(client)).doesNotContainKey("hami.io/mutex.lock");
    assertThat(podAnnotations(client, "test-pod")).containsEntry("hami.io/bind-phase", "failed");
  }

  @Test
  void missingNodeFailsWithoutTouchingPods() {
    pod(client, "test-pod", 1L, oneContainer("[{\"UUID\":\"uuid1\"}]"), List.of(), List.of("main"));
    assertThatThrownBy(() -> rig(uuid1AtPhy3()).resourceManager().allocate(List.of("uuid1-0")))
        .hasMessageContaining("get pending pod");
    assertThat(podAnnotations(client, "test-pod"))
        .containsEntry("hami.io/bind-phase", "allocating");
  }

  // section 3.4: fallback without a lock picks the oldest eligible pod; ineligible pods are skipped
  @Test
  void fallbackPicksOldestEligiblePendingPod() throws Exception {
    node(client, Map.of());
    pod(
        client,
        "newer",
        1700000200L,
        oneContainer("[{\"UUID\":\"uuid1\",\"temp\":\"vir02\"}]"),
        List.of(),
        List.of("main"));
    pod(
        client,
        "older",
        1700000100L,
        oneContainer("[{\"UUID\":\"uuid1\",\"temp\":\"vir01\"}]"),
        List.of(),
        List.of("main"));
    pod(
        client,
        "oldest-failed",
        1700000000L,
        Map.of(
            "hami.io/bind-phase",
            "failed",
            "hami.io/Ascend910-devices-to-allocate",
            "uuid1,Ascend910,1024,4:;",
            "huawei.com/Ascend910",
            "[]"),
        List.of(),
        List.of("main"));
    pod(
        client,
        "other-node",
        1600000000L,
        Map.of(
            "hami.io/vgpu-node",
            "node-2",
            "hami.io/Ascend910-devices-to-allocate",
            "uuid1,Ascend910,1024,4:;",
            "huawei.com/Ascend910",
            "[]"),
        List.of(),
        List.of("main"));
    HamiResourceManager rm = rig(uuid1AtPhy3()).resourceManager();
    assertThat(rm.allocate(List.of("uuid1-0")).envs()).containsEntry("ASCEND_VNPU_SPECS", "vir01");
    assertThat(podAnnotations(client, "older")).containsEntry("hami.io/bind-phase", "success");
    assertThat(podAnnotations(client, "newer")).containsEntry("hami.io/bind-phase", "allocating");
    // the finished pod is no longer a candidate, so the next call gets the newer one
    assertThat(rm.allocate(List.of("uuid1-1")).envs()).containsEntry("ASCEND_VNPU_SPECS", "vir02");
    assertThatThrownBy(() -> rm.allocate(List.of("uuid1-2")))
        .hasMessage("no binding pod found on node node-1");
  }

  // bug 9.2: a lock naming a pod that is not Pending on this node is not trusted
  @Test
  void lockNamingUnsuitablePodFallsBackWithoutReleasingForeignLock() throws Exception {
    node(client, Map.of("hami.io/mutex.lock", "2024-01-01T00:00:00Z,default,elsewhere"));
    pod(
        client,
        "elsewhere",
        1L,
        Map.of(
            "hami.io/vgpu-node",
            "node-2",
            "hami.io/Ascend910-devices-to-allocate",
            "uuid1,Ascend910,1024,4:;",
            "huawei.com/Ascend910",
            "[]"),
        List.of(),
        List.of("main"));
    client
        .pods()
        .inNamespace("default")
        .withName("elsewhere")
        .edit(
            p -> {
              p.getSpec().setNodeName("node-2");
              return p;
            });
    pod(
        client,
        "mine",
        5L,
        oneContainer("[{\"UUID\":\"uuid1\",\"temp\":\"vir01\"}]"),
        List.of(),
        List.of("main"));
    assertThat(rig(uuid1AtPhy3()).resourceManager().allocate(List.of("uuid1-0")).envs())
        .containsEntry("ASCEND_VNPU_SPECS", "vir01");
    assertThat(podAnnotations(client, "mine")).containsEntry("hami.io/bind-phase", "success");
    assertThat(nodeAnnotations(client))
        .containsEntry("hami.io/mutex.lock", "2024-01-01T00:00:00Z,default,elsewhere");
  }

  // two pending pods: the lock holder is served first even though the other is older (bug 9.1 /
  // #15)
  @Test
  void twoPendingPodsFollowTheLock() throws Exception {
    node(client, Map.of("hami.io/mutex.lock", "2024-01-01T00:00:00Z,default,second"));
    pod(
        client,
        "first",
        100L,
        oneContainer("[{\"UUID\":\"uuid1\",\"temp\":\"vir01\"}]"),
        List.of(),
        List.of("main"));
    pod(
        client,
        "second",
        200L,
        Map.of(
            "hami.io/Ascend910-devices-to-allocate",
                "uuid1,Ascend910,1024,4:;uuid1,Ascend910,2048,8:;",
            "huawei.com/Ascend910", "[{\"UUID\":\"uuid1\",\"temp\":\"vir02\"}]"),
        List.of(),
        List.of("a", "b"));
    HamiResourceManager rm = rig(uuid1AtPhy3()).resourceManager();
    assertThat(rm.allocate(List.of("uuid1-0")).envs()).containsEntry("ASCEND_VNPU_SPECS", "vir02");
    // second container of the lock holder: still the lock holder, not the older pod
    assertThat(rm.allocate(List.of("uuid1-1")).envs()).containsEntry("ASCEND_VNPU_SPECS", "vir02");
    assertThat(podAnnotations(client, "second")).containsEntry("hami.io/bind-phase", "success");
    assertThat(podAnnotations(client, "first")).containsEntry("hami.io/bind-phase", "allocating");
    assertThat(nodeAnnotations(client)).doesNotContainKey("hami.io/mutex.lock");
    // the scheduler now locks the node for the first pod
    client
        .nodes()
        .withName(NODE)
        .edit(
            n -> {
              n.getMetadata()
                  .getAnnotations()
                  .put("hami.io/mutex.lock", "2024-01-01T00:01:00Z,default,first");
              return n;
            });
    assertThat(rm.allocate(List.of("uuid1-2")).envs()).containsEntry("ASCEND_VNPU_SPECS", "vir01");
    assertThat(podAnnotations(client, "first")).containsEntry("hami.io/bind-phase", "success");
    assertThat(nodeAnnotations(client)).doesNotContainKey("hami.io/mutex.lock");
  }

  @Test
  void wholeCardGetsOnlyVisibleDevices() throws Exception {
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(
        client,
        "test-pod",
        1L,
        Map.of(
            "hami.io/Ascend910-devices-to-allocate",
            "uuid1,Ascend910,32768,0:;",
            "huawei.com/Ascend910",
            "[{\"UUID\":\"uuid1\"}]"),
        List.of(),
        List.of("main"));
    assertThat(rig(uuid1AtPhy3()).resourceManager().allocate(List.of("uuid1-0")).envs())
        .isEqualTo(Map.of("ASCEND_VISIBLE_DEVICES", "3"));
  }

  @Test
  void hardSplitCreatesVnpuWhenThePluginOwnsCreation() throws Exception {
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(
        client,
        "test-pod",
        1L,
        Map.of(
            "hami.io/Ascend910-devices-to-allocate",
            "uuid1,Ascend910,8738,0:;",
            "huawei.com/Ascend910",
            "[{\"UUID\":\"uuid1\",\"temp\":\"vir08\",\"memory\":8738}]"),
        List.of(),
        List.of("main"));
    FakeDeviceManager dm = new FakeDeviceManager(uuid1AtPhy3());
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
            HamiOptions.defaults(NODE).withHardSplit(HardSplitStrategy.PLUGIN_CREATES_VNPU),
            new MutableClock(Instant.parse("2026-07-24T10:15:30Z")),
            new RecordingScheduler());
    c.inventory().refresh();
    ContainerAllocation a = c.resourceManager().allocate(List.of("uuid1-0"));
    assertThat(a.envs())
        .isEqualTo(Map.of("ASCEND_VISIBLE_DEVICES", "100", "ASCEND_RUNTIME_OPTIONS", "VIRTUAL"));
    assertThat(dm.calls()).contains("create 0 vir08");
    assertThat(dm.listVnpus(0)).extracting(v -> v.templateName()).containsExactly("vir08");
    // the fresh vNPU is not in use yet and survives the idle cleanup (grace period)
    assertThat(c.idleCleaner().runOnce()).isEmpty();
    assertThat(dm.listVnpus(0)).hasSize(1);
  }

  @Test
  void failedVnpuCreationFailsTheBind() {
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(
        client,
        "test-pod",
        1L,
        Map.of(
            "hami.io/Ascend910-devices-to-allocate",
            "uuid1,Ascend910,8738,0:;",
            "huawei.com/Ascend910",
            "[{\"UUID\":\"uuid1\",\"temp\":\"vir08\"}]"),
        List.of(),
        List.of("main"));
    FakeDeviceManager dm = new FakeDeviceManager(uuid1AtPhy3());
    dm.failCreate("dcmi_create_vdevice failed: -8005");
    HamiChipSettings chip =
        new HamiChipSettings(
            "910A", "Ascend910", "huawei.com/Ascend910", 32768, 32768, 30, List.of());
    HamiComponents c =
        new HamiComponents(
            client,
            dm,
            chip,
            HamiNodeSettings.defaults(false),
            HamiOptions.defaults(NODE).withHardSplit(HardSplitStrategy.PLUGIN_CREATES_VNPU),
            new MutableClock(Instant.EPOCH),
            new RecordingScheduler());
    c.inventory().refresh();
    assertThatThrownBy(() -> c.resourceManager().allocate(List.of("uuid1-0")))
        .hasMessageContaining(
            "create vNPU vir08 on NPU uuid1 (logic ID 0): dcmi_create_vdevice failed: -8005");
    assertThat(podAnnotations(client, "test-pod")).containsEntry("hami.io/bind-phase", "failed");
    assertThat(nodeAnnotations(client)).doesNotContainKey("hami.io/mutex.lock");
  }

  // soft split: an init container without NPU, then a two-device hami-core container
  @Test
  void softSplitCreatesPerDeviceQuotaRegion() throws Exception {
    LimiterFiles limiter = LimiterFixture.installInto(limiterRoot.resolve("hami-vnpu-core"));
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(
        client,
        "test-pod",
        1L,
        Map.of(
            "huawei.com/vnpu-mode",
            "hami-core",
            "hami.io/Ascend910-devices-to-allocate",
            ";uuid1,Ascend910,16384,40:uuid2,Ascend910,8192,20:;",
            "huawei.com/Ascend910",
            "[{\"UUID\":\"uuid1\",\"memory\":16384,\"core\":40},{\"UUID\":\"uuid2\",\"memory\":8192,\"core\":20}]"),
        List.of("init"),
        List.of("worker"));
    HamiOptions opts =
        HamiOptions.defaults(NODE)
            .withSoftSplit(
                SoftSplitLayout.upstream(hookPath).withLimiterDir(limiter.hostDir().toString()),
                Optional.<QuotaRegionFactory>of(
                    (region, config) -> {
                      Files.writeString(region.file(), region.devices().toString());
                      regionLog.add(
                          region.file() + " " + region.registryDir() + " " + region.devices());
                      return 0x51L;
                    }));
    HamiResourceManager rm =
        rig(
                List.of(
                    FakeDeviceManager.npu("uuid1", 0, 4, "910A"),
                    FakeDeviceManager.npu("uuid2", 1, 5, "910A")),
                HamiNodeSettings.defaults(false),
                opts)
            .resourceManager();
    ContainerAllocation a = rm.allocate(List.of("uuid1-0", "uuid2-0"));
    Path dir = hookPath.resolve("containers/" + KubeFixtures.uid(client, "test-pod") + "_worker");
    assertThat(a.envs())
        .isEqualTo(
            Map.of(
                "ASCEND_VISIBLE_DEVICES",
                "4,5",
                "NPU_MEM_QUOTA",
                "16384",
                "NPU_PRIORITY",
                "40",
                "NPU_GLOBAL_SHM_PATH",
                "/hami-shared-region/4_global_registry",
                "NPU_LOCAL_SHM_PATH",
                "/hami-vnpu-shmem/vnpu_local_shmem"));
    assertThat(a.mounts())
        .hasSize(8)
        .contains(
            new Mount("/hami-vnpu-shmem", dir.toString(), false),
            new Mount("/etc/ld.so.preload", limiter.preload().toString(), true),
            // the agent's registries, read-only: no container writes what its neighbours read
            new Mount("/hami-shared-region", hookPath.resolve("registry").toString(), true));
    // registered on both NPUs under the region's key, each device's core percent as cap and weight
    io.vnpu.quota.registry.ComputeRegistries regs = new io.vnpu.quota.registry.ComputeRegistries();
    try (io.vnpu.quota.registry.ComputeRegistry npu4 =
            regs.open(hookPath.resolve("registry/npu4.reg"));
        io.vnpu.quota.registry.ComputeRegistry npu5 =
            regs.open(hookPath.resolve("registry/npu5.reg"))) {
      assertThat(npu4.entries())
          .extracting(e -> List.of(e.key(), e.weight(), e.capPct(), e.name()))
          .containsExactly(List.of(0x51L, 40, 40, "default/test-pod/worker"));
      assertThat(npu5.entries())
          .extracting(e -> List.of(e.key(), e.weight(), e.capPct()))
          .containsExactly(List.of(0x51L, 20, 20));
      // nothing of the container in the directory every container mounts (issue 23)
      try (var files = Files.list(hookPath.resolve("registry"))) {
        assertThat(files.map(p -> p.getFileName().toString()))
            .containsExactlyInAnyOrder("npu4.reg", "npu5.reg");
      }
    }
    assertThat(regionLog)
        .containsExactly(
            dir.resolve("vnpu_local_shmem")
                + " /hami-shared-region "
                + List.of(
                    new SliceDevice(
                        new NpuRef(4, "uuid1"),
                        new SliceShare.SoftQuota(16384L << 20, 40, 40, Priority.NORMAL)),
                    new SliceDevice(
                        new NpuRef(5, "uuid2"),
                        new SliceShare.SoftQuota(8192L << 20, 20, 20, Priority.NORMAL))));
    // the region is complete before anyone else may enter; nobody but the agent writes the
    // directory
    assertThat(Files.getPosixFilePermissions(dir))
        .isEqualTo(PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThat(Files.getPosixFilePermissions(hookPath.resolve("containers")))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));
    assertThat(podAnnotations(client, "test-pod")).containsEntry("hami.io/bind-phase", "success");
  }

  // issue 24: two containers of one pod on the same NPU each get their own RuntimeInfo entry, never
  // the last one for both; an entry asking for more than devices-to-allocate charged is refused
  @Test
  void twoContainersOnOneNpuEachGetTheirOwnEntry() throws Exception {
    LimiterFiles limiter = LimiterFixture.installInto(limiterRoot.resolve("hami-vnpu-core"));
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(
        client,
        "test-pod",
        1L,
        Map.of(
            "huawei.com/vnpu-mode",
            "hami-core",
            "hami.io/Ascend910-devices-to-allocate",
            "uuid1,Ascend910,8192,10:;uuid1,Ascend910,16384,25:;",
            "huawei.com/Ascend910",
            "[{\"UUID\":\"uuid1\",\"memory\":8192,\"core\":10},"
                + "{\"UUID\":\"uuid1\",\"memory\":16384,\"core\":25}]"),
        List.of(),
        List.of("small", "large"));
    HamiOptions opts =
        HamiOptions.defaults(NODE)
            .withSoftSplit(
                SoftSplitLayout.upstream(hookPath).withLimiterDir(limiter.hostDir().toString()),
                Optional.<QuotaRegionFactory>of(
                    (region, config) -> {
                      Files.writeString(region.file(), region.devices().toString());
                      regionLog.add(region.devices().toString());
                      return 0x60L + regionLog.size();
                    }));
    HamiResourceManager rm =
        rig(uuid1AtPhy3(), HamiNodeSettings.defaults(false), opts).resourceManager();
    assertThat(rm.allocate(List.of("uuid1-0")).envs())
        .containsEntry("NPU_MEM_QUOTA", "8192")
        .containsEntry("NPU_PRIORITY", "10");
    assertThat(rm.allocate(List.of("uuid1-1")).envs())
        .containsEntry("NPU_MEM_QUOTA", "16384")
        .containsEntry("NPU_PRIORITY", "25");
    assertThat(regionLog)
        .containsExactly(
            List.of(
                    new SliceDevice(
                        new NpuRef(3, "uuid1"),
                        new SliceShare.SoftQuota(8192L << 20, 10, 10, Priority.NORMAL)))
                .toString(),
            List.of(
                    new SliceDevice(
                        new NpuRef(3, "uuid1"),
                        new SliceShare.SoftQuota(16384L << 20, 25, 25, Priority.NORMAL)))
                .toString());

    // the pod's owner rewrites RuntimeInfo to more than was charged: refused, naming the field
    regionLog.clear();
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(
        client,
        "forged",
        2L,
        Map.of(
            "huawei.com/vnpu-mode",
            "hami-core",
            "hami.io/Ascend910-devices-to-allocate",
            "uuid1,Ascend910,8192,10:;",
            "huawei.com/Ascend910",
            "[{\"UUID\":\"uuid1\",\"memory\":8192,\"core\":90}]"),
        List.of(),
        List.of("main"));
    assertThatThrownBy(() -> rm.allocate(List.of("uuid1-0")))
        .hasMessageContaining(
            "allocate for pod default/forged:"
                + " device uuid1: annotation huawei.com/Ascend910 core = 90: more than the 10 % AI Core the scheduler charged"
                + " (devices-to-allocate)");
    assertThat(regionLog).isEmpty();
  }

  // the node's mode applies when the pod says nothing; a region failure fails the bind and cleans
  // up
  @Test
  void softSplitByNodeModeAndRegionFailure() throws Exception {
    LimiterFiles limiter = LimiterFixture.installInto(limiterRoot.resolve("hami-vnpu-core"));
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(
        client,
        "test-pod",
        1L,
        Map.of(
            "hami.io/Ascend910-devices-to-allocate",
            "uuid1,Ascend910,4096,10:;",
            "huawei.com/Ascend910",
            "[{\"UUID\":\"uuid1\",\"memory\":4096,\"core\":10}]"),
        List.of(),
        List.of("main"));
    HamiOptions opts =
        HamiOptions.defaults(NODE)
            .withSoftSplit(
                SoftSplitLayout.upstream(hookPath).withLimiterDir(limiter.hostDir().toString()),
                Optional.<QuotaRegionFactory>of(
                    (region, config) -> {
                      throw new java.io.IOException("disk full");
                    }));
    HamiResourceManager rm =
        rig(uuid1AtPhy3(), HamiNodeSettings.defaults(true), opts).resourceManager();
    Path dir = hookPath.resolve("containers/" + KubeFixtures.uid(client, "test-pod") + "_main");
    assertThatThrownBy(() -> rm.allocate(List.of("uuid1-0")))
        .hasMessageContaining("prepare quota region in " + dir)
        .hasMessageContaining("disk full");
    assertThat(dir).doesNotExist();
    assertThat(podAnnotations(client, "test-pod")).containsEntry("hami.io/bind-phase", "failed");
    assertThat(nodeAnnotations(client)).doesNotContainKey("hami.io/mutex.lock");
  }

  // the limiter is missing or corrupt: soft Allocate is refused naming the file, nothing is
  // prepared
  @Test
  void softSplitRefusedWhenLimiterMissingOrCorrupt() throws Exception {
    Path limiterDir = limiterRoot.resolve("hami-vnpu-core");
    HamiOptions opts =
        HamiOptions.defaults(NODE)
            .withSoftSplit(
                SoftSplitLayout.upstream(hookPath).withLimiterDir(limiterDir.toString()),
                Optional.<QuotaRegionFactory>of(
                    (region, config) -> {
                      regionLog.add(region.file() + " " + region.devices());
                      return 0x52L;
                    }));
    String annotation = "[{\"UUID\":\"uuid1\",\"memory\":4096,\"core\":10}]";
    Map<String, String> podAnnotations =
        Map.of(
            "huawei.com/vnpu-mode",
            "hami-core",
            "hami.io/Ascend910-devices-to-allocate",
            "uuid1,Ascend910,4096,10:;",
            "huawei.com/Ascend910",
            annotation);

    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(client, "test-pod", 1L, podAnnotations, List.of(), List.of("main"));
    HamiResourceManager rm =
        rig(uuid1AtPhy3(), HamiNodeSettings.defaults(false), opts).resourceManager();
    Path dir = hookPath.resolve("containers/" + KubeFixtures.uid(client, "test-pod") + "_main");
    assertThatThrownBy(() -> rm.allocate(List.of("uuid1-0")))
        .hasMessageContaining(
            "soft slice for container default/test-pod/main refused: limiter "
                + limiterDir.resolve("libvnpu.so")
                + ": does not exist");
    assertThat(dir).doesNotExist();
    assertThat(regionLog).isEmpty();
    assertThat(podAnnotations(client, "test-pod")).containsEntry("hami.io/bind-phase", "failed");

    LimiterFiles limiter = LimiterFixture.installInto(limiterDir);
    Files.write(limiter.library(), new byte[100]);
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(client, "pod-2", 2L, podAnnotations, List.of(), List.of("main"));
    assertThatThrownBy(() -> rm.allocate(List.of("uuid1-0")))
        .hasMessageContaining(
            "soft slice for container default/pod-2/main refused: limiter "
                + limiter.library()
                + ": is not an ELF file (20 header bytes read)");
    assertThat(regionLog).isEmpty();

    // a hard-split or whole-NPU container on the same node is not affected
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(
        client,
        "whole",
        3L,
        oneContainer("[{\"UUID\":\"uuid1\",\"memory\":32768,\"core\":0}]"),
        List.of(),
        List.of("main"));
    assertThat(rm.allocate(List.of("uuid1-0")).envs()).containsEntry("ASCEND_VISIBLE_DEVICES", "3");
  }

  // a pod that writes its own soft-split annotations with memory 0 would get an unlimited region
  @Test
  void forgedZeroMemorySoftQuotaIsRefused() throws Exception {
    LimiterFiles limiter = LimiterFixture.installInto(limiterRoot.resolve("hami-vnpu-core"));
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(
        client,
        "test-pod",
        1L,
        Map.of(
            "huawei.com/vnpu-mode",
            "hami-core",
            "hami.io/Ascend910-devices-to-allocate",
            "uuid1,Ascend910,0,10:;",
            "huawei.com/Ascend910",
            "[{\"UUID\":\"uuid1\",\"core\":10}]"),
        List.of(),
        List.of("main"));
    HamiOptions opts =
        HamiOptions.defaults(NODE)
            .withSoftSplit(
                SoftSplitLayout.upstream(hookPath).withLimiterDir(limiter.hostDir().toString()),
                Optional.<QuotaRegionFactory>of(
                    (region, config) -> {
                      regionLog.add(region.file() + " " + region.devices());
                      return 0x52L;
                    }));
    HamiResourceManager rm =
        rig(uuid1AtPhy3(), HamiNodeSettings.defaults(true), opts).resourceManager();
    assertThatThrownBy(() -> rm.allocate(List.of("uuid1-0")))
        .hasMessageContaining(
            "device uuid1: devices-to-allocate memory = 0 MiB: a Kubernetes soft slice must be > 0 MiB");
    assertThat(regionLog).isEmpty();
    assertThat(hookPath.resolve("containers/" + KubeFixtures.uid(client, "test-pod") + "_main"))
        .doesNotExist();
    assertThat(podAnnotations(client, "test-pod")).containsEntry("hami.io/bind-phase", "failed");
    assertThat(nodeAnnotations(client)).doesNotContainKey("hami.io/mutex.lock");
  }

  // without a lock, a decoy with the oldest bind time and made-up annotations (no NPU in its spec)
  // is skipped: the real pod is served and the decoy keeps its annotations
  @Test
  void decoyWithOldestBindTimeCannotFailTheRealPod() throws Exception {
    node(client, Map.of());
    pod(
        client,
        "decoy",
        1L,
        Map.of(
            "hami.io/Ascend910-devices-to-allocate",
            "uuid1,Ascend910,32768,0:;",
            "huawei.com/Ascend910",
            "[{\"UUID\":\"uuid1\",\"temp\":\"vir16\"}]"),
        List.of(),
        List.of("main"),
        false);
    pod(
        client,
        "real",
        1700000000L,
        oneContainer("[{\"UUID\":\"uuid1\",\"temp\":\"vir08\"}]"),
        List.of(),
        List.of("main"));
    HamiResourceManager rm = rig(uuid1AtPhy3()).resourceManager();
    assertThat(rm.allocate(List.of("uuid1-0")).envs()).containsEntry("ASCEND_VNPU_SPECS", "vir08");
    assertThat(podAnnotations(client, "real")).containsEntry("hami.io/bind-phase", "success");
    assertThat(podAnnotations(client, "decoy"))
        .containsEntry("hami.io/bind-phase", "allocating")
        .containsEntry("hami.io/Ascend910-devices-to-allocate", "uuid1,Ascend910,32768,0:;");
  }

  // under a legacy lock (no owner), even a decoy whose spec does request the NPU is skipped when
  // its
  // bind time is older than the lock: the scheduler locks first, then writes the bind time
  @Test
  void legacyLockSkipsABindOlderThanTheLock() throws Exception {
    node(client, Map.of("hami.io/mutex.lock", "2023-11-14T22:13:20Z"));
    pod(
        client,
        "decoy",
        1L,
        Map.of(
            "hami.io/Ascend910-devices-to-allocate",
            "uuid1,Ascend910,32768,0:;",
            "huawei.com/Ascend910",
            "[{\"UUID\":\"uuid1\",\"temp\":\"vir16\"}]"),
        List.of(),
        List.of("main"));
    pod(
        client,
        "real",
        1700000001L,
        oneContainer("[{\"UUID\":\"uuid1\",\"temp\":\"vir08\"}]"),
        List.of(),
        List.of("main"));
    HamiResourceManager rm = rig(uuid1AtPhy3()).resourceManager();
    assertThat(rm.allocate(List.of("uuid1-0")).envs()).containsEntry("ASCEND_VNPU_SPECS", "vir08");
    assertThat(podAnnotations(client, "real")).containsEntry("hami.io/bind-phase", "success");
    assertThat(podAnnotations(client, "decoy")).containsEntry("hami.io/bind-phase", "allocating");
    assertThat(nodeAnnotations(client)).doesNotContainKey("hami.io/mutex.lock");
  }

  // the lock owner itself wrote an entry its spec does not request: it fails, with the reason
  @Test
  void lockOwnerWhoseSpecDoesNotMatchItsAnnotationFails() {
    node(client, Map.of("hami.io/mutex.lock", LOCK));
    pod(
        client,
        "test-pod",
        1L,
        oneContainer("[{\"UUID\":\"uuid1\",\"temp\":\"vir08\"}]"),
        List.of(),
        List.of("main"),
        false);
    HamiResourceManager rm = rig(uuid1AtPhy3()).resourceManager();
    assertThatThrownBy(() -> rm.allocate(List.of("uuid1-0")))
        .hasMessage(
            "allocate for pod default/test-pod: annotation "
                + "hami.io/Ascend910-devices-to-allocate entry 0 does not match the pod's spec: its container main requests no huawei.com/Ascend910");
    assertThat(podAnnotations(client, "test-pod")).containsEntry("hami.io/bind-phase", "failed");
    assertThat(nodeAnnotations(client)).doesNotContainKey("hami.io/mutex.lock");
  }
}
