package io.vnpu.kube.mindcluster;

import static io.vnpu.kube.mindcluster.VolcanoPodsFixture.annotations;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.StatusRuntimeException;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.model.Priority;
import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginClient;
import io.vnpu.kube.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vnpu.kube.deviceplugin.v1beta1.Mount;
import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.limiter.LimiterFixture;
import io.vnpu.kube.limiter.LimiterVerifier;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import io.vnpu.kube.mindcluster.volcano.SoftShareLimiter;
import io.vnpu.kube.resource.VnpuQuotaRegionFactory;
import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MindCluster soft sharing (softShareDev annotations, anchors section 4) enforced by our quota
 * region and limiter: kubelet stand-in, real gRPC plugin, the simulated 910B3x8 node with
 * {@code -shareDevCount=100 -softShareDevConfigDir}, and the CRUD mock API server.
 */
@EnableKubernetesMockClient(crud = true)
class MindClusterSoftShareTest {
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-07-24T10:15:30Z"), ZoneOffset.UTC);
  private static final String R = "huawei.com/Ascend910";
  private static final String CORE = "huawei.com/scheduler.softShareDev.aicoreQuota";
  private static final String HBM = "huawei.com/scheduler.softShareDev.hbmQuota";

  KubernetesClient client;

  @TempDir
  Path dir;

  private KubeletStandIn kubelet;
  private SimHost host;
  private HealthMonitor health;
  private MindClusterComponents components;
  private PluginFleet fleet;
  private final QuotaRegions regions = new QuotaRegions();

  private void start(LimiterFiles limiter) throws Exception {
    kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
    host = new SimHost("910B3x8", dir.resolve("sim"));
    health = MindClusterRegistrationTest.healthOf(host);
    health.pollOnce();
    MindClusterOptions options = MindClusterOptions.defaults(VolcanoPodsFixture.NODE).withVolcano(true, true)
        .withShare(100, Optional.of(dir.resolve("softshare"))).withRuntime(true, dir.resolve("host"));
    SoftShareLimiter soft = new SoftShareLimiter(dir.resolve("regions"), limiter,
        LimiterVerifier.forThisMachine(limiter), new VnpuQuotaRegionFactory(regions));
    components = new MindClusterComponents(options, client,
        () -> client.pods().inAnyNamespace().list().getItems(), host.deviceManager, health, CLOCK,
        Optional.of(soft));
    components.start(null);
    fleet = new PluginFleet(kubelet, components.resourceManagers());
  }

  @AfterEach
  void tearDown() throws Exception {
    if (fleet != null) fleet.close();
    if (components != null) components.close();
    if (health != null) health.close();
    if (host != null) host.close();
    if (kubelet != null) kubelet.close();
  }

  private void softPod(String name, String chip, String core, String hbm) {
    Map<String, String> a = new HashMap<>(Map.of(R, chip, "predicate-time", "1000000000000000000"));
    a.put(CORE, core);
    a.put(HBM, hbm);
    Pod p = VolcanoPodsFixture.pod(name, "uid-" + name, R, 1, a);
    client.pods().inNamespace("default").resource(p).createOr(NonDeletingOperation::update);
  }

  @Test
  void softSharePodGetsOurRegionWithItsHbmAndAiCoreQuotaAndTheLimiter() throws Exception {
    LimiterFiles limiter = LimiterFixture.installInto(dir.resolve("limiter"));
    start(limiter);
    softPod("infer", "Ascend910-3", "30", "4096");
    try (PluginClient plugin = fleet.client(R)) {
      ContainerAllocateResponse r = plugin.allocate(List.of(List.of("Ascend910-3-7"))).getContainerResponses(0);
      assertThat(r.getEnvsMap()).containsEntry("ASCEND_VISIBLE_DEVICES", "3")
          .containsEntry("NPU_LOCAL_SHM_PATH", "/vnpu-shmem/vnpu_local_shmem")
          .containsEntry("NPU_MEM_QUOTA", "4096");
      String uid = client.pods().inNamespace("default").withName("infer").get().getMetadata().getUid();
      Path containerDir = dir.resolve("regions").resolve(uid + "_Ascend910-3-7");
      Map<String, String> mounts = r.getMountsList().stream()
          .collect(Collectors.toMap(Mount::getContainerPath, Mount::getHostPath));
      assertThat(mounts).containsEntry("/hami-vnpu-core", limiter.hostDir().toString())
          .containsEntry("/etc/ld.so.preload", limiter.preload().toString())
          .containsEntry("/vnpu-shmem", containerDir.toString());
      try (QuotaRegion region = regions.open(containerDir.resolve("vnpu_local_shmem"))) {
        RegionConfig c = region.readConfig();
        assertThat(c.devices()).hasSize(1);
        DeviceQuota q = c.devices().get(0);
        assertThat(q.memLimitBytes()).isEqualTo(4096L << 20);
        assertThat(q.computeWeight()).isEqualTo(30);
        assertThat(q.priority()).isEqualTo(Priority.NORMAL);
        assertThat(q.physId()).isEqualTo(3);
      }
      assertThat(annotations(client, "infer")).containsEntry("huawei.com/AscendReal", "Ascend910-3")
          .containsEntry("predicate-time", "18446744073709551615");
    }
  }

  @Test
  void zeroOrOutOfRangeQuotaIsRefusedNamingTheAnnotationAndNothingIsCreated() throws Exception {
    start(LimiterFixture.installInto(dir.resolve("limiter")));
    softPod("bad", "Ascend910-2", "0", "4096");
    try (PluginClient plugin = fleet.client(R)) {
      assertThatThrownBy(() -> plugin.allocate(List.of(List.of("Ascend910-2-0"))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining(CORE + " = \"0\"").hasMessageContaining("1..100");
      softPod("bad", "Ascend910-2", "50", "99999999");
      assertThatThrownBy(() -> plugin.allocate(List.of(List.of("Ascend910-2-0"))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining(HBM + " = \"99999999\"").hasMessageContaining("out of range");
    }
    assertThat(annotations(client, "bad")).containsEntry("predicate-time", "1000000000000000000");
    // refused before anything was created: no container directory under the region root
    Path root = dir.resolve("regions");
    assertThat(!Files.exists(root) || Files.list(root).findAny().isEmpty()).as("no region under %s", root).isTrue();
  }

  @Test
  void missingLimiterRefusesAllocateNamingTheFile() throws Exception {
    Path empty = Files.createDirectories(dir.resolve("no-limiter"));
    start(LimiterFiles.hami(empty));
    softPod("infer", "Ascend910-1", "30", "4096");
    try (PluginClient plugin = fleet.client(R)) {
      assertThatThrownBy(() -> plugin.allocate(List.of(List.of("Ascend910-1-0"))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining(empty.resolve("libvnpu.so").toString());
    }
  }
}
