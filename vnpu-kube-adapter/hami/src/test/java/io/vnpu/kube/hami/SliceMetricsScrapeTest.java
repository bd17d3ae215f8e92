package io.vnpu.kube.hami;

import static io.vnpu.kube.hami.KubeFixtures.NODE;
import static io.vnpu.kube.hami.KubeFixtures.node;
import static io.vnpu.kube.hami.KubeFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vnpu.api.fault.LiveDeviceHealth;
import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.Mount;
import io.vnpu.kube.agent.DeviceManagerTelemetry;
import io.vnpu.kube.hami.alloc.SoftSplitLayout;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.limiter.LimiterFixture;
import io.vnpu.kube.metrics.CompatNames;
import io.vnpu.kube.metrics.MeasuredResourceManager;
import io.vnpu.kube.metrics.NpuCollector;
import io.vnpu.kube.metrics.OpsServer;
import io.vnpu.kube.metrics.RequestMetrics;
import io.vnpu.kube.metrics.SliceCollector;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.resource.QuotaRegionFactory;
import io.vnpu.quota.region.MemoryAccount;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.registry.ComputeRegistries;
import io.vnpu.quota.registry.ComputeRegistry;
import io.vnpu.quota.registry.RegistryMember;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scrapes {@code /metrics} over HTTP after a soft-slice Allocate, a workload's allocations and a
 * 207001, then after the pod is gone: the pod's series are removed and no other series changed.
 */
@EnableKubernetesMockClient(crud = true)
class SliceMetricsScrapeTest {
  private static final long MIB = 1L << 20;

  KubernetesClient client;

  @TempDir Path hook;
  @TempDir Path limiterRoot;
  @TempDir Path sharedParent;

  @Test
  void sliceSeriesFollowThePodAndUseEveryNameSet() throws Exception {
    // a registry directory of its own: the registries' lock directory lies beside it
    Path shared = java.nio.file.Files.createDirectory(sharedParent.resolve("registry"));
    trainPod();
    FakeDeviceManager dm = twoNpus();
    HamiComponents c = components(dm, Optional.of(QuotaRegionFactory.writing(new QuotaRegions())));

    PrometheusRegistry registry = new PrometheusRegistry();
    AtomicLong nanos = new AtomicLong(1_000_000_000L);
    Set<CompatNames> all = EnumSet.allOf(CompatNames.class);
    MeasuredResourceManager rm =
        new MeasuredResourceManager(c.resourceManager(), new RequestMetrics(registry), nanos::get);
    registry.register(
        new NpuCollector(
            NODE,
            "Ascend910B3",
            new DeviceManagerTelemetry(dm, dm.discover(), new LiveDeviceHealth(dm)),
            all));
    registry.register(sliceCollector(c, shared, nanos));

    ContainerAllocation a = rm.allocate(List.of("U0-0"));
    Path region = regionOf(a);

    try (OpsServer server = OpsServer.start("127.0.0.1", 0, registry, Map.of(), Map.of());
        QuotaRegion workload = new QuotaRegions().open(region);
        ComputeRegistry reg =
            new ComputeRegistries()
                .createOrOpen(shared.resolve(ComputeRegistries.fileName(4)), 4)) {
      // the workload: 768 MiB admitted, then 512 MiB more is over the 1024 MiB limit (207001)
      MemoryAccount account = workload.memoryAccount();
      assertThat(account.admit(0, 768 * MIB)).isTrue();
      assertThat(account.admit(0, 512 * MIB)).isFalse();
      reg.register(
          new RegistryMember(workload.epoch(), "default/train/main", 40, 0, Priority.NORMAL));

      Map<String, String> before = scrape(server);
      assertThat(before)
          .containsEntry("vnpu_slice_memory_limit_bytes" + SLICE, "1.073741824E9")
          .containsEntry("vnpu_slice_memory_used_bytes" + SLICE, "8.05306368E8")
          .containsEntry("vnpu_slice_memory_peak_bytes" + SLICE, "8.05306368E8")
          .containsEntry("vnpu_slice_oom_rejections_total" + SLICE, "1.0")
          .containsEntry("vnpu_slice_kernel_launches_total" + SLICE, "0.0")
          .containsEntry(
              "vnpu_slice_processes{container=\"main\",namespace=\"default\",node=\"node-1\",pod=\"train\"}",
              "1.0")
          .containsEntry(
              "hami_vgpu_memory_used_bytes{container=\"main\",device_uuid=\"U0\",namespace=\"default\","
                  + "pod=\"train\",vdevice_index=\"0\"}",
              "8.05306368E8")
          .containsEntry(
              "hami_vgpu_memory_limit_bytes{container=\"main\",device_uuid=\"U0\",namespace=\"default\","
                  + "pod=\"train\",vdevice_index=\"0\"}",
              "1.073741824E9")
          .containsEntry(
              "vnpu_pod_used_memory{container_name=\"main\",id=\"4\",namespace=\"default\",pod_name=\"train\","
                  + "vdie_id=\"U0\"}",
              "768.0")
          .containsEntry(
              "vnpu_pod_total_memory{container_name=\"main\",id=\"4\",namespace=\"default\",pod_name=\"train\","
                  + "vdie_id=\"U0\"}",
              "1024.0")
          .containsEntry("vnpu_plugin_requests_total{operation=\"allocate\"}", "1.0")
          .containsEntry("vnpu_npu_healthy{node=\"node-1\",npu_uuid=\"U1\",phy_id=\"5\"}", "1.0")
          .containsEntry(
              "npu_chip_info_health_status{id=\"5\",model_name=\"Ascend910B3\",vdie_id=\"U1\"}",
              "1.0")
          .containsEntry(
              "vnpu_npu_hbm_total_bytes{node=\"node-1\",npu_uuid=\"U0\",phy_id=\"4\"}",
              "6.8719476736E10");
      // the fake driver cannot measure HBM use or utilisation: absent, never 0
      assertThat(before.keySet())
          .noneMatch(
              k ->
                  k.startsWith("vnpu_npu_hbm_used_bytes")
                      || k.startsWith("vnpu_npu_aicore_utilization_ratio")
                      || k.startsWith("hami_host_gpu_memory_used_bytes"));
      // achieved share needs two scrapes
      assertThat(before.keySet()).noneMatch(k -> k.startsWith("vnpu_slice_aicore_achieved_ratio"));

      nanos.addAndGet(1_000_000_000L);
      Map<String, String> second = scrape(server);
      assertThat(second).containsEntry("vnpu_slice_aicore_achieved_ratio" + SLICE, "0.0");

      // the pod is gone: its series disappear, nothing else changes
      client.pods().inNamespace("default").withName("train").delete();
      Map<String, String> after = scrape(server);
      assertThat(after.keySet())
          .noneMatch(k -> k.contains("pod=\"train\"") || k.contains("pod_name=\"train\""));
      Map<String, String> expected =
          second.entrySet().stream()
              .filter(
                  e ->
                      !e.getKey().contains("pod=\"train\"")
                          && !e.getKey().contains("pod_name=\"train\""))
              .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
      assertThat(after).isEqualTo(expected);
      assertThat(Files.exists(region)).isTrue(); // the metrics never remove files
    }
  }

  /**
   * Issue 23: a tenant writes its own quota region. After it raises its limit from the 1024 MiB it
   * was charged to 64 GiB, names another NPU and takes the high priority, the scrape still shows
   * the charge (from the agent's record), flags each field, and shows no figure the tenant wrote.
   */
  @Test
  void aLimitTheTenantWritesIntoItsRegionIsNeverReported() throws Exception {
    Path shared = java.nio.file.Files.createDirectory(sharedParent.resolve("registry"));
    trainPod();
    HamiComponents c =
        components(twoNpus(), Optional.of(QuotaRegionFactory.writing(new QuotaRegions())));
    PrometheusRegistry registry = new PrometheusRegistry();
    registry.register(sliceCollector(c, shared, new AtomicLong(1_000_000_000L)));
    ContainerAllocation a = c.resourceManager().allocate(List.of("U0-0"));
    Path region = regionOf(a);
    try (OpsServer server = OpsServer.start("127.0.0.1", 0, registry, Map.of(), Map.of());
        QuotaRegion tenant = new QuotaRegions().open(region)) {
      Map<String, String> honest = scrape(server);
      assertThat(honest).containsEntry("vnpu_slice_memory_limit_bytes" + SLICE, "1.073741824E9");
      assertThat(honest.keySet()).noneMatch(k -> k.startsWith("vnpu_slice_region_mismatch"));

      io.vnpu.quota.model.RegionConfig charged = tenant.readConfig();
      io.vnpu.quota.model.DeviceQuota q = charged.devices().get(0);
      tenant.updateConfig(
          charged.withDevices(
              List.of(
                  new io.vnpu.quota.model.DeviceQuota(
                      64L << 30, q.computeWeight(), q.computeCapPct(), Priority.HIGH, 5, "U1"))));
      assertThat(tenant.usage().devices().get(0).limitBytes()).isEqualTo(64L << 30);

      Map<String, String> after = scrape(server);
      assertThat(after)
          .containsEntry("vnpu_slice_memory_limit_bytes" + SLICE, "1.073741824E9")
          .containsEntry(
              "hami_vgpu_memory_limit_bytes{container=\"main\",device_uuid=\"U0\","
                  + "namespace=\"default\",pod=\"train\",vdevice_index=\"0\"}",
              "1.073741824E9")
          .containsEntry(
              "vnpu_pod_total_memory{container_name=\"main\",id=\"4\",namespace=\"default\","
                  + "pod_name=\"train\",vdie_id=\"U0\"}",
              "1024.0");
      String who =
          "container=\"main\",field=\"%s\",namespace=\"default\",node=\"node-1\","
              + "pod=\"train\"";
      for (String field : List.of("memory_limit", "phy_id", "priority", "uuid")) {
        assertThat(after)
            .containsEntry("vnpu_slice_region_mismatch{" + who.formatted(field) + "}", "1.0");
      }
      assertThat(after.keySet())
          .filteredOn(k -> k.startsWith("vnpu_slice_region_mismatch"))
          .hasSize(4);
      // nothing the tenant wrote: not its limit, not the NPU it named
      assertThat(after.values()).doesNotContain("6.8719476736E10", "65536.0");
      assertThat(after.keySet()).noneMatch(k -> k.contains("U1") || k.contains("\"5\""));
    }
  }

  /**
   * HAMi with regions the limiter makes itself (upstream hami-vnpu-core; here {@code libvnpu.so}
   * under npu-burn, which creates the region from the Allocate environment): the scrape shows the
   * limit the scheduler charged, labelled with the charged NPU, from the record Allocate wrote;
   * after the tenant raises the limit in its region to 64 GiB, still the charge, with {@code
   * memory_limit} flagged and nothing the tenant wrote. No AI-core series: the limiter's registry
   * entries are its own.
   */
  @Test
  void aRegionTheLimiterMadeShowsTheChargedLimitNeverTheTenants() throws Exception {
    Path shared = java.nio.file.Files.createDirectory(sharedParent.resolve("registry"));
    trainPod();
    // no region factory: the limiter creates the regions on this node
    HamiComponents c = components(twoNpus(), Optional.empty());
    PrometheusRegistry registry = new PrometheusRegistry();
    registry.register(sliceCollector(c, shared, new AtomicLong(1_000_000_000L)));
    ContainerAllocation a = c.resourceManager().allocate(List.of("U0-0"));
    Path region = regionOf(a);
    assertThat(region).doesNotExist(); // the limiter's to create
    assertThat(a.envs()).containsEntry("NPU_MEM_QUOTA", "1024");

    // the workload under the limiter: 768 MiB admitted, 512 MiB more refused with 207001
    Path nativeDir = LimiterFixture.nativeLibrary().getParent();
    ProcessBuilder pb =
        new ProcessBuilder(
            nativeDir.resolve("npu-burn").toString(),
            "--alloc-via",
            "rt",
            "alloc",
            "768M",
            "alloc",
            "512M");
    Map<String, String> env = pb.environment();
    env.keySet()
        .removeIf(k -> k.startsWith("NPU_") || k.startsWith("VNPU_") || k.equals("LD_PRELOAD"));
    env.putAll(a.envs());
    env.put("NPU_LOCAL_SHM_PATH", region.toString());
    env.put("LD_PRELOAD", LimiterFixture.nativeLibrary().toString());
    env.put("VNPU_SIM_ROOT", sharedParent.resolve("sim").toString());
    env.put("VNPU_SIM_QUIET", "1");
    pb.redirectErrorStream(true);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out.lines().map(l -> l.replaceAll(" (ptr|pid|thread)=\\S+", "")))
        .contains("alloc ok size=" + 768 * MIB, "alloc fail code=207001 size=" + 512 * MIB);
    assertThat(region).isRegularFile();

    try (OpsServer server = OpsServer.start("127.0.0.1", 0, registry, Map.of(), Map.of());
        QuotaRegion tenant = new QuotaRegions().open(region)) {
      // the limiter's own table: no phy ID or UUID of the charge in it
      assertThat(tenant.readConfig().devices().get(0).physId()).isEqualTo(-1);
      Map<String, String> honest = scrape(server);
      assertThat(honest)
          .containsEntry("vnpu_slice_memory_limit_bytes" + SLICE, "1.073741824E9")
          .containsEntry("vnpu_slice_memory_peak_bytes" + SLICE, "8.05306368E8")
          .containsEntry("vnpu_slice_oom_rejections_total" + SLICE, "1.0")
          .containsEntry(
              "hami_vgpu_memory_limit_bytes{container=\"main\",device_uuid=\"U0\","
                  + "namespace=\"default\",pod=\"train\",vdevice_index=\"0\"}",
              "1.073741824E9");
      assertThat(honest.keySet())
          .noneMatch(
              k ->
                  k.startsWith("vnpu_slice_region_mismatch")
                      || k.startsWith("vnpu_slice_aicore")
                      || k.startsWith("vnpu_slice_kernel_launches"));
      // one series per charged device, not one per entry of the limiter's table
      assertThat(honest.keySet())
          .filteredOn(k -> k.startsWith("vnpu_slice_memory_limit_bytes"))
          .containsExactly("vnpu_slice_memory_limit_bytes" + SLICE);

      io.vnpu.quota.model.RegionConfig own = tenant.readConfig();
      tenant.updateConfig(
          own.withDevices(
              own.devices().stream()
                  .map(
                      q ->
                          new io.vnpu.quota.model.DeviceQuota(
                              64L << 30, 10000, 0, Priority.HIGH, 5, "U1"))
                  .toList()));
      Map<String, String> after = scrape(server);
      assertThat(after)
          .containsEntry("vnpu_slice_memory_limit_bytes" + SLICE, "1.073741824E9")
          .containsEntry(
              "vnpu_pod_total_memory{container_name=\"main\",id=\"4\",namespace=\"default\","
                  + "pod_name=\"train\",vdie_id=\"U0\"}",
              "1024.0")
          .containsEntry(
              "vnpu_slice_region_mismatch{container=\"main\",field=\"memory_limit\","
                  + "namespace=\"default\",node=\"node-1\",pod=\"train\"}",
              "1.0");
      assertThat(after.keySet())
          .filteredOn(k -> k.startsWith("vnpu_slice_region_mismatch"))
          .hasSize(1);
      assertThat(after.values()).doesNotContain("6.8719476736E10", "65536.0");
      assertThat(after.keySet()).noneMatch(k -> k.contains("U1") || k.contains("\"5\""));
    }
  }

  /** The labels of the test pod's slice on U0 (phy ID 4). */
  private static final String SLICE =
      "{container=\"main\",device_index=\"0\",namespace=\"default\",node=\"node-1\","
          + "npu_uuid=\"U0\",phy_id=\"4\",pod=\"train\"}";

  /** The pod of every test: one hami-core container charged 1024 MiB and 40 % of U0. */
  private void trainPod() {
    node(client, Map.of("hami.io/mutex.lock", "2024-01-01T00:00:00Z,default,train"));
    pod(
        client,
        "train",
        1L,
        Map.of(
            "huawei.com/vnpu-mode",
            "hami-core",
            "hami.io/Ascend910B3-devices-to-allocate",
            "U0,Ascend910B3,1024,40:;",
            "huawei.com/Ascend910B3",
            "[{\"UUID\":\"U0\",\"memory\":1024,\"core\":40}]"),
        List.of(),
        List.of("main"));
  }

  /** A node of two NPUs: U0 (logic 0, phy 4) and U1 (logic 1, phy 5). */
  private static FakeDeviceManager twoNpus() {
    return new FakeDeviceManager(
        List.of(FakeDeviceManager.npu("U0", 0, 4), FakeDeviceManager.npu("U1", 1, 5)));
  }

  /**
   * The agent's HAMi components on {@code dm} with the upstream layout and the real limiter; {@code
   * regions} empty: the limiter creates the quota regions.
   */
  private HamiComponents components(FakeDeviceManager dm, Optional<QuotaRegionFactory> regions)
      throws Exception {
    SoftSplitLayout layout =
        SoftSplitLayout.upstream(hook)
            .withLimiterDir(
                LimiterFixture.installInto(limiterRoot.resolve("hami-vnpu-core"))
                    .hostDir()
                    .toString());
    HamiComponents c =
        new HamiComponents(
            client,
            dm,
            new HamiChipSettings(
                "910B3", "Ascend910B3", "huawei.com/Ascend910B3", 65536, 65536, 20, List.of()),
            HamiNodeSettings.defaults(true),
            HamiOptions.defaults(NODE).withSoftSplit(layout, regions),
            new MutableClock(Instant.EPOCH),
            new RecordingScheduler());
    c.inventory().refresh();
    return c;
  }

  /** The slice series of {@code c}'s node, every compatibility name set, registries in shared. */
  private SliceCollector sliceCollector(HamiComponents c, Path shared, AtomicLong nanos) {
    return new SliceCollector(
        NODE,
        new HamiSliceSource(client, NODE, c.slices()),
        d -> d.equals("/hami-shared-region") ? Optional.of(shared) : Optional.empty(),
        EnumSet.allOf(CompatNames.class),
        nanos::get);
  }

  /** The host path of the container's quota region in an Allocate answer. */
  private static Path regionOf(ContainerAllocation a) {
    return Path.of(
            a.mounts().stream()
                .filter(m -> m.containerPath().equals("/hami-vnpu-shmem"))
                .map(Mount::hostPath)
                .findFirst()
                .orElseThrow())
        .resolve("vnpu_local_shmem");
  }

  /** {@code series{labels} -> value} of every sample line of the text format. */
  private static Map<String, String> scrape(OpsServer server) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return Arrays.stream(r.body().split("\n"))
        .filter(l -> !l.startsWith("#") && !l.isBlank())
        .filter(
            l -> !l.contains("_created") && !l.startsWith("vnpu_plugin_request_duration_seconds"))
        .collect(
            Collectors.toMap(
                l -> l.substring(0, l.lastIndexOf(' ')), l -> l.substring(l.lastIndexOf(' ') + 1)));
  }
}
