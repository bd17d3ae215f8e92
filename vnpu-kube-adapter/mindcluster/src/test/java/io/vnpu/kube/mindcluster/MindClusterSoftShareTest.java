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
import io.vnpu.kube.limiter.SimContainer;
import io.vnpu.kube.metrics.OpsServer;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import io.vnpu.kube.resource.QuotaRegionFactory;
import io.vnpu.kube.softslice.SoftSliceLayout;
import io.vnpu.kube.softslice.SoftSlices;
import io.vnpu.kube.testing.MetricsScrape;
import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.registry.ComputeRegistries;
import io.vnpu.quota.registry.ComputeRegistry;
import io.vnpu.quota.registry.RegistryEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MindCluster soft sharing (softShareDev annotations, anchors section 4) enforced by our quota
 * region and limiter: kubelet stand-in, real gRPC plugin, the simulated 910B3x8 node with {@code
 * -shareDevCount=100 -softShareDevConfigDir}, and the CRUD mock API server.
 */
@EnableKubernetesMockClient(crud = true)
class MindClusterSoftShareTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-07-24T10:15:30Z"), ZoneOffset.UTC);
  private static final String R = "huawei.com/Ascend910";
  private static final String CORE = "huawei.com/scheduler.softShareDev.aicoreQuota";
  private static final String POLICY = "huawei.com/scheduler.softShareDev.policy";
  private static final String HBM = "huawei.com/scheduler.softShareDev.hbmQuota";

  KubernetesClient client;

  @TempDir Path dir;

  private KubeletStandIn kubelet;
  private SimHost host;
  private HealthMonitor health;
  private MindClusterComponents components;
  private PluginFleet fleet;
  private OpsServer ops;
  private final QuotaRegions regions = new QuotaRegions();

  private void start(LimiterFiles limiter) throws Exception {
    kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
    host = new SimHost("910B3x8", dir.resolve("sim"));
    health = MindClusterRegistrationTest.healthOf(host);
    health.pollOnce();
    components = components(limiter);
    components.start(null);
    fleet = new PluginFleet(kubelet, components.resourceManagers());
  }

  /**
   * The agent's MindCluster side (a new one is an agent restart: same options, same directories).
   */
  private MindClusterComponents components(LimiterFiles limiter) {
    MindClusterOptions options =
        MindClusterOptions.defaults(VolcanoPodsFixture.NODE)
            .withVolcano(true, true)
            .withShare(100, Optional.of(dir.resolve("softshare")))
            .withRuntime(true, dir.resolve("host"));
    SoftSlices soft =
        new SoftSlices(
            SoftSliceLayout.vnpu(dir.resolve("softshare"), limiter),
            QuotaRegionFactory.writing(regions),
            LimiterVerifier.forThisMachine(limiter));
    return new MindClusterComponents(
        options,
        client,
        () -> client.pods().inAnyNamespace().list().getItems(),
        host.deviceManager,
        health,
        CLOCK,
        Optional.of(soft));
  }

  /**
   * A real {@code /metrics} endpoint with the per-slice collector MindClusterAgent serves, reading
   * the slices of whichever components run now (an agent restart replaces them).
   */
  private OpsServer metricsEndpoint() throws java.io.IOException {
    io.prometheus.metrics.model.registry.PrometheusRegistry registry =
        new io.prometheus.metrics.model.registry.PrometheusRegistry();
    registry.register(
        new io.vnpu.kube.metrics.SliceCollector(
            VolcanoPodsFixture.NODE,
            () -> components.sliceSource().slices(),
            d -> components.softShare().flatMap(s -> s.registryHostDir(d)),
            Set.of(),
            System::nanoTime));
    ops = OpsServer.start("127.0.0.1", 0, registry, Map.of(), Map.of());
    return ops;
  }

  @AfterEach
  void tearDown() throws Exception {
    if (ops != null) ops.close();
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
      ContainerAllocateResponse r =
          plugin.allocate(List.of(List.of("Ascend910-3-7"))).getContainerResponses(0);
      assertThat(r.getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "3")
          .containsEntry("NPU_LOCAL_SHM_PATH", "/vnpu-shmem/vnpu_local_shmem")
          .containsEntry("NPU_MEM_QUOTA", "4096");
      String uid =
          client.pods().inNamespace("default").withName("infer").get().getMetadata().getUid();
      Path containerDir = dir.resolve("softshare/regions").resolve(uid + "_Ascend910-3-7");
      Map<String, String> mounts =
          r.getMountsList().stream()
              .collect(Collectors.toMap(Mount::getContainerPath, Mount::getHostPath));
      assertThat(mounts)
          .containsEntry("/hami-vnpu-core", limiter.hostDir().toString())
          .containsEntry("/etc/ld.so.preload", limiter.preload().toString())
          .containsEntry("/vnpu-shmem", containerDir.toString())
          .containsEntry(
              dir.resolve("softshare/compute").toString(),
              dir.resolve("softshare/compute").toString());
      assertThat(r.getMountsList())
          .filteredOn(m -> m.getContainerPath().equals(dir.resolve("softshare/compute").toString()))
          .extracting(Mount::getReadOnly)
          .containsExactly(true);
      try (QuotaRegion region = regions.open(containerDir.resolve("vnpu_local_shmem"))) {
        RegionConfig c = region.readConfig();
        assertThat(c.registryDir()).isEqualTo(dir.resolve("softshare/compute").toString());
        assertThat(c.devices()).hasSize(1);
        DeviceQuota q = c.devices().get(0);
        assertThat(q.memLimitBytes()).isEqualTo(4096L << 20);
        assertThat(q.computeWeight()).isEqualTo(30);
        assertThat(q.computeCapPct()).isEqualTo(30);
        assertThat(q.priority()).isEqualTo(Priority.NORMAL);
        assertThat(q.physId()).isEqualTo(3);
      }
      assertThat(annotations(client, "infer"))
          .containsEntry("huawei.com/AscendReal", "Ascend910-3")
          .containsEntry("predicate-time", "18446744073709551615");
    }
  }

  /**
   * The kubelet picks the share copies itself (this plugin offers no GetPreferredAllocation, so the
   * kubelet takes free healthy copies in its own order, {@code Ascend910-0-0} first), whatever chip
   * Volcano placed the pod on. The share went to the kubelet's chip: pods Volcano spread over the
   * chips by their quotas all landed on chip 0, whose HBM and AI-core time they then overbooked.
   */
  @Test
  void theShareIsOnTheChipVolcanoChoseWhicheverCopyTheKubeletPicked() throws Exception {
    start(LimiterFixture.installInto(dir.resolve("limiter")));
    softPod("on3", "Ascend910-3", "60", "40960");
    ContainerAllocateResponse r3 = allocate("Ascend910-0-0");
    softPod("on5", "Ascend910-5", "60", "40960");
    ContainerAllocateResponse r5 = allocate("Ascend910-0-1");

    assertThat(r3.getEnvsMap()).containsEntry("ASCEND_VISIBLE_DEVICES", "3");
    assertThat(r5.getEnvsMap()).containsEntry("ASCEND_VISIBLE_DEVICES", "5");
    try (QuotaRegion region = regions.open(regionOf(r3))) {
      assertThat(region.readConfig().devices()).extracting(DeviceQuota::physId).containsExactly(3);
    }
    try (QuotaRegion region = regions.open(regionOf(r5))) {
      assertThat(region.readConfig().devices()).extracting(DeviceQuota::physId).containsExactly(5);
    }
    assertThat(annotations(client, "on3"))
        .containsEntry("huawei.com/AscendReal", "Ascend910-3")
        .containsEntry("huawei.com/kltDev", "Ascend910-0-0");
    assertThat(registry(3)).hasSize(1);
    assertThat(registry(5)).hasSize(1);

    // a fault on chip 3 reaches the kubelet's copy that holds it, not chip 0's other copies
    host.ctl("fault", "3", "0x80E01801");
    health.pollOnce();
    assertThat(components.resourceManager(R).orElseThrow().devices())
        .filteredOn(d -> !d.healthy())
        .extracting(d -> d.id())
        .contains("Ascend910-0-0", "Ascend910-3-0")
        .doesNotContain("Ascend910-0-1", "Ascend910-0-2");
  }

  private static final long MIB = 1L << 20;

  /** The Allocate answer of one kubelet device of {@link #R}. */
  private ContainerAllocateResponse allocate(String deviceId) throws Exception {
    try (PluginClient plugin = fleet.client(R)) {
      return plugin.allocate(List.of(List.of(deviceId))).getContainerResponses(0);
    }
  }

  private static List<io.vnpu.api.slice.Mount> mounts(ContainerAllocateResponse r) {
    return r.getMountsList().stream()
        .map(
            m ->
                new io.vnpu.api.slice.Mount(m.getContainerPath(), m.getHostPath(), m.getReadOnly()))
        .toList();
  }

  private Path regionOf(ContainerAllocateResponse r) {
    return Path.of(
            r.getMountsList().stream()
                .filter(m -> m.getContainerPath().equals("/vnpu-shmem"))
                .findFirst()
                .orElseThrow()
                .getHostPath())
        .resolve("vnpu_local_shmem");
  }

  private static String burn() {
    return SimContainer.nativeDir().resolve("npu-burn").toString();
  }

  private List<RegistryEntry> registry(int phyId) throws Exception {
    try (ComputeRegistry r =
        new ComputeRegistries().open(dir.resolve("softshare/compute/npu" + phyId + ".reg"))) {
      return r.entries();
    }
  }

  // issue 16: the aicoreQuota is a cap the limiter holds, through the agent's compute registry
  @Test
  void aicoreQuotaOf25IsHeldAndHbmBeyondTheQuotaIsRefused() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        SimContainer.available(), SimContainer.UNAVAILABLE);
    start(LimiterFixture.installInto(dir.resolve("limiter")));
    softPod("infer", "Ascend910-3", "25", "1024");
    ContainerAllocateResponse r = allocate("Ascend910-3-0");
    Path region = regionOf(r);
    long key;
    try (QuotaRegion q = regions.open(region)) {
      key = q.epoch();
    }
    assertThat(registry(3))
        .extracting(e -> List.of(e.key(), e.weight(), e.capPct(), e.name()))
        .containsExactly(List.of(key, 25, 25, "default/infer"));

    SimContainer.Result res =
        new SimContainer(dir, dir.resolve("sim"))
            .run(
                r.getEnvsMap(),
                mounts(r),
                List.of(
                    burn(),
                    "--alloc-via",
                    "rt",
                    "alloc",
                    "1G",
                    "alloc",
                    "1",
                    "launch",
                    "1000",
                    "300"));
    assertThat(res.exit()).as(res.err()).isZero();
    assertThat(
            res.out().stream()
                .filter(l -> l.startsWith("alloc"))
                .map(l -> l.replaceAll(" (ptr|pid|thread)=\\S+", "")))
        .containsExactly("alloc ok size=" + 1024 * MIB, "alloc fail code=207001 size=1");
    long wall = SimContainer.field(res.line("launch done"), "wall_ns");
    try (QuotaRegion q = regions.open(region)) {
      // AI-core time the limiter measured for the container, over its wall time
      double share = (double) q.computeCounters(0).busyNs() / wall;
      assertThat(share).as("AI-core share").isBetween(0.20, 0.30);
      assertThat(q.computeCounters(0).launches()).isEqualTo(300);
    }
    // the agent's publisher copies the region's counters into the registry every 10 ms: the round
    // after the container's last launch may still be ahead
    RegistryEntry e = registry(3).get(0);
    for (long deadline = System.nanoTime() + 10_000_000_000L;
        e.launches() < 300 && System.nanoTime() < deadline; ) {
      Thread.sleep(20);
      e = registry(3).get(0);
    }
    assertThat(e.sharePpm()).isEqualTo(250_000);
    assertThat(e.launches()).isEqualTo(300);
  }

  // issue 28: softShareDev.policy is interpreted: elastic 25 % alone borrows the idle chip
  @Test
  void elasticPolicyAnnotationLetsA25PercentShareBorrowTheIdleChip() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        SimContainer.available(), SimContainer.UNAVAILABLE);
    start(LimiterFixture.installInto(dir.resolve("limiter")));
    softPod("elastic", "Ascend910-3", "25", "1024");
    client
        .pods()
        .inNamespace("default")
        .withName("elastic")
        .edit(
            p -> {
              p.getMetadata().getAnnotations().put(POLICY, "elastic");
              return p;
            });
    ContainerAllocateResponse r = allocate("Ascend910-3-0");
    Path region = regionOf(r);
    try (QuotaRegion q = regions.open(region)) {
      RegionConfig c = q.readConfig();
      assertThat(c.sharingPolicy()).contains(io.vnpu.api.slice.SharingPolicy.ELASTIC);
      assertThat(c.devices().get(0).computeWeight()).isEqualTo(25);
      assertThat(c.devices().get(0).computeCapPct()).isZero();
    }
    SimContainer.Result res =
        new SimContainer(dir, dir.resolve("sim"))
            .run(r.getEnvsMap(), mounts(r), List.of(burn(), "launch", "1000", "300"));
    assertThat(res.exit()).as(res.err()).isZero();
    long wall = SimContainer.field(res.line("launch done"), "wall_ns");
    try (QuotaRegion q = regions.open(region)) {
      double share = (double) q.computeCounters(0).busyNs() / wall;
      assertThat(share).as("AI-core share of an elastic 25 %% slice alone").isGreaterThan(0.85);
    }
  }

  @Test
  void aPolicyThatIsNotOneOfTheThreeIsRefusedNamingPodAnnotationAndValue() throws Exception {
    start(LimiterFixture.installInto(dir.resolve("limiter")));
    softPod("badpolicy", "Ascend910-2", "50", "4096");
    client
        .pods()
        .inNamespace("default")
        .withName("badpolicy")
        .edit(
            p -> {
              p.getMetadata().getAnnotations().put(POLICY, "burst");
              return p;
            });
    try (PluginClient plugin = fleet.client(R)) {
      assertThatThrownBy(() -> plugin.allocate(List.of(List.of("Ascend910-2-0"))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining(
              "pod default/badpolicy: annotation "
                  + POLICY
                  + " = \"burst\": not fixed-share,"
                  + " elastic or best-effort");
    }
  }

  // issue 16: two soft containers on one chip, both busy: quotas 40 + 80 > 100 split the chip 1:2
  @Test
  void twoBusyContainersOnOneChipSplitItByTheirQuotas() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        SimContainer.available(), SimContainer.UNAVAILABLE);
    start(LimiterFixture.installInto(dir.resolve("limiter")));
    softPod("small", "Ascend910-3", "40", "1024");
    ContainerAllocateResponse a = allocate("Ascend910-3-0");
    softPod("large", "Ascend910-3", "80", "1024");
    ContainerAllocateResponse b = allocate("Ascend910-3-1");
    assertThat(registry(3)).extracting(RegistryEntry::capPct).containsExactlyInAnyOrder(40, 80);

    SimContainer c = new SimContainer(dir, dir.resolve("sim"));
    List<String> burn = List.of(burn(), "burn", "1000", "4");
    Process pa = c.start(a.getEnvsMap(), mounts(a), burn);
    Process pb = c.start(b.getEnvsMap(), mounts(b), burn);
    try (QuotaRegion ra = regions.open(regionOf(a));
        QuotaRegion rb = regions.open(regionOf(b))) {
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (ra.computeCounters(0).launches() == 0 || rb.computeCounters(0).launches() == 0) {
        assertThat(System.nanoTime()).as("both containers launch").isLessThan(deadline);
        Thread.sleep(20);
      }
      Thread.sleep(500); // both busy: past the burst either had alone
      long a0 = ra.computeCounters(0).busyNs();
      long b0 = rb.computeCounters(0).busyNs();
      long t0 = System.nanoTime();
      Thread.sleep(2000);
      long a1 = ra.computeCounters(0).busyNs();
      long b1 = rb.computeCounters(0).busyNs();
      double window = System.nanoTime() - t0;
      assertThat(pa.isAlive() && pb.isAlive()).as("both still busy over the whole window").isTrue();
      assertThat((a1 - a0) / window)
          .as("share of the quota-40 container")
          .isBetween(1 / 3.0 - 0.05, 1 / 3.0 + 0.05);
      assertThat((b1 - b0) / window)
          .as("share of the quota-80 container")
          .isBetween(2 / 3.0 - 0.05, 2 / 3.0 + 0.05);
    }
    SimContainer.Result ea = SimContainer.finish(pa);
    SimContainer.Result eb = SimContainer.finish(pb);
    assertThat(ea.exit()).as(ea.err()).isZero();
    assertThat(eb.exit()).as(eb.err()).isZero();
  }

  // issue 16: registrations survive an agent restart as they are; a deleted pod's entry and
  // directory go
  @Test
  void agentRestartKeepsRegistrationsAndPodDeletionRemovesEntryAndDirectory() throws Exception {
    LimiterFiles limiter = LimiterFixture.installInto(dir.resolve("limiter"));
    start(limiter);
    int port = metricsEndpoint().port();
    assertThat(MetricsScrape.sliceSeries(port)).isEmpty();
    softPod("keep", "Ascend910-2", "25", "1024");
    ContainerAllocateResponse k = allocate("Ascend910-2-0");
    // the series appear with the Allocate
    assertThat(MetricsScrape.sliceSeries(port))
        .contains(
            "vnpu_slice_memory_limit_bytes{namespace=default,pod=keep,container=Ascend910-2-0,device_index=0} 1.073741824E9");
    softPod("gone", "Ascend910-2", "50", "1024");
    ContainerAllocateResponse g = allocate("Ascend910-2-1");
    List<RegistryEntry> before = registry(2);
    assertThat(before).extracting(RegistryEntry::capPct).containsExactlyInAnyOrder(25, 50);

    // restart: the old agent stops, a new one starts on the same directories
    fleet.close();
    fleet = null;
    components.close();
    components = components(limiter);
    components.start(null);
    assertThat(registry(2))
        .extracting(e -> e.index() + " " + e.key() + " " + e.weight() + " " + e.capPct())
        .containsExactlyElementsOf(
            before.stream()
                .map(e -> e.index() + " " + e.key() + " " + e.weight() + " " + e.capPct())
                .toList());
    components.refreshOnce();
    assertThat(registry(2)).hasSize(2);

    long goneKey;
    try (QuotaRegion q = regions.open(regionOf(g))) {
      goneKey = q.epoch();
    }
    Path goneDir = regionOf(g).getParent();
    // issue 24: each share's per-slice series on /metrics, gone with its pod
    assertThat(MetricsScrape.sliceSeries(port))
        .contains(
            "vnpu_slice_memory_limit_bytes{namespace=default,pod=keep,container=Ascend910-2-0,device_index=0} 1.073741824E9",
            "vnpu_slice_memory_limit_bytes{namespace=default,pod=gone,container=Ascend910-2-1,device_index=0} 1.073741824E9");
    client.pods().inNamespace("default").withName("gone").delete();
    assertThat(MetricsScrape.sliceSeries(port))
        .noneMatch(l -> l.contains("pod=gone"))
        .anyMatch(l -> l.contains("pod=keep"));
    components.refreshOnce();
    assertThat(goneDir).doesNotExist();
    assertThat(regionOf(k)).exists();
    assertThat(registry(2)).extracting(RegistryEntry::capPct).containsExactly(25);
    assertThat(registry(2)).extracting(RegistryEntry::key).doesNotContain(goneKey);
    assertThat(registry(2))
        .extracting(RegistryEntry::key)
        .containsExactly(
            before.stream().filter(e -> e.capPct() == 25).findFirst().orElseThrow().key());
    try (var files = Files.list(dir.resolve("softshare/compute"))) {
      // what containers mount: registries only, nothing of any container (issue 23)
      assertThat(files.map(p -> p.getFileName().toString()))
          .allMatch(n -> n.matches("npu\\d+\\.reg"));
    }
  }

  @Test
  void zeroOrOutOfRangeQuotaIsRefusedNamingTheAnnotationAndNothingIsCreated() throws Exception {
    start(LimiterFixture.installInto(dir.resolve("limiter")));
    softPod("bad", "Ascend910-2", "0", "4096");
    try (PluginClient plugin = fleet.client(R)) {
      assertThatThrownBy(() -> plugin.allocate(List.of(List.of("Ascend910-2-0"))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining(CORE + " = \"0\"")
          .hasMessageContaining("1..100");
      softPod("bad", "Ascend910-2", "50", "99999999");
      assertThatThrownBy(() -> plugin.allocate(List.of(List.of("Ascend910-2-0"))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining(HBM + " = \"99999999\"")
          .hasMessageContaining("out of range");
      softPod("bad", "Ascend910-2", "50", "0");
      assertThatThrownBy(() -> plugin.allocate(List.of(List.of("Ascend910-2-0"))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining("pod default/bad: annotation " + HBM)
          .hasMessageContaining("memory = 0 MiB: a Kubernetes soft slice must be > 0 MiB");
    }
    assertThat(annotations(client, "bad")).containsEntry("predicate-time", "1000000000000000000");
    // refused before anything was created: no container directory under the region root
    Path root = dir.resolve("softshare/regions");
    assertThat(!Files.exists(root) || Files.list(root).findAny().isEmpty())
        .as("no region under %s", root)
        .isTrue();
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
