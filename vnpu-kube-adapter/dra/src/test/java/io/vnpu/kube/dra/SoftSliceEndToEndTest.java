package io.vnpu.kube.dra;

import static io.vnpu.kube.dra.DraTestBed.DRIVER;
import static io.vnpu.kube.dra.DraTestBed.NODE;
import static io.vnpu.kube.testing.DraClaims.allocated;
import static io.vnpu.kube.testing.DraKubeletStandIn.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfigurationBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.model.Priority;
import io.vnpu.kube.dra.cdi.CdiSchema;
import io.vnpu.kube.dra.modes.SoftCapacityNames;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourceResponse;
import io.vnpu.kube.limiter.LimiterFixture;
import io.vnpu.kube.metrics.OpsServer;
import io.vnpu.kube.testing.DraKubeletStandIn;
import io.vnpu.kube.testing.MetricsScrape;
import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.PolicyFlag;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Soft slices through DRA ({@code --enable-soft-slicing}) against the kubelet stand-in and the mock
 * API server, on eight simulated 910B3 (64 GiB): the published capacities, the quota region and
 * registry entry of each share, the CDI edits, and npu-burn on the simulated CANN runtime run under
 * those edits as a container runtime would apply them, with the real limiter preloaded.
 */
@EnableKubernetesMockClient(crud = true)
class SoftSliceEndToEndTest {
  static final long MIB = 1L << 20;
  static final long GIB = 1L << 30;

  KubernetesClient client;
  io.fabric8.kubernetes.client.server.mock.KubernetesMockServer server;

  @TempDir Path tmp;

  DraTestBed bed;
  DraKubeletStandIn kubelet;
  DraPlugin plugin;
  OpsServer ops;
  final QuotaRegions regions = new QuotaRegions();

  @BeforeEach
  void setUp() throws Exception {
    bed = new DraTestBed(tmp, client);
    bed.softSlicing = true;
    bed.limiter = LimiterFixture.installInto(tmp.resolve("limiter"));
    kubelet = new DraKubeletStandIn();
  }

  @AfterEach
  void tearDown() {
    if (ops != null) {
      ops.close();
    }
    if (plugin != null) {
      plugin.close();
    }
    kubelet.close();
  }

  void start() throws Exception {
    plugin = bed.startedPlugin();
    DraTestBed.await("NPUs discovered", () -> plugin.inventory().devices().size() == 8);
  }

  Path draSocket() {
    return Path.of(kubelet.getInfo(bed.registrar.resolve(DRIVER + "-reg.sock")).getEndpoint());
  }

  Path dataDir() {
    return bed.plugins.resolve(DRIVER);
  }

  static DeviceRequestAllocationResult share(
      String request, String device, String shareId, Map<String, String> consumed) {
    Map<String, Quantity> q = new LinkedHashMap<>();
    consumed.forEach((k, v) -> q.put(k, new Quantity(v)));
    return new DeviceRequestAllocationResultBuilder()
        .withRequest(request)
        .withDriver(DRIVER)
        .withPool(NODE)
        .withDevice(device)
        .withShareID(shareId)
        .withConsumedCapacity(q)
        .build();
  }

  static DeviceRequestAllocationResult soft(
      String device, String shareId, String mem, String cores) {
    return share("npu", device, shareId, Map.of("memory", mem, "cores", cores));
  }

  static DeviceAllocationConfiguration config(
      String source, List<String> requests, Map<String, Object> parameters) {
    return new DeviceAllocationConfigurationBuilder()
        .withSource(source)
        .withRequests(requests)
        .withNewOpaque()
        .withDriver(DRIVER)
        .withParameters(parameters)
        .endOpaque()
        .build();
  }

  static Map<String, Object> npuConfig(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("apiVersion", "npu.vnpu.io/v1alpha1");
    m.put("kind", "NpuConfig");
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  /**
   * The share's per-slice series as Prometheus scrapes them: the collector DraLauncher serves
   * ({@code --metrics-port}), on a real {@code /metrics} endpoint.
   */
  OpsServer metricsEndpoint() throws java.io.IOException {
    io.prometheus.metrics.model.registry.PrometheusRegistry registry =
        new io.prometheus.metrics.model.registry.PrometheusRegistry();
    registry.register(
        new io.vnpu.kube.metrics.SliceCollector(
            NODE,
            plugin.sliceSource(),
            d -> plugin.softSlices().registryHostDir(d),
            java.util.Set.of(),
            System::nanoTime));
    ops = OpsServer.start("127.0.0.1", 0, registry, Map.of(), Map.of());
    return ops;
  }

  /** The UID the API server gave the last claim. */
  String uid;

  NodePrepareResourceResponse prepare(
      String name,
      List<DeviceRequestAllocationResult> results,
      List<DeviceAllocationConfiguration> config) {
    ResourceClaim c = allocated("demo", name, "unused-" + name, results);
    c.getStatus().getAllocation().getDevices().setConfig(config);
    c = bed.create(c);
    uid = c.getMetadata().getUid();
    return kubelet.prepareV1(draSocket(), claim("demo", uid, name)).getClaimsOrThrow(uid);
  }

  String unprepare(String name, String uid) {
    return kubelet
        .unprepareV1(draSocket(), claim("demo", uid, name))
        .getClaimsOrThrow(uid)
        .getError();
  }

  Path spec(String uid) {
    return bed.cdi.resolve("npu.huawei.com-npu_" + uid + ".json");
  }

  Path region(String uid, String request) {
    return dataDir().resolve("regions").resolve(uid + "_" + request).resolve("vnpu_local_shmem");
  }

  RegionConfig regionConfig(Path file) throws Exception {
    try (QuotaRegion r = regions.open(file)) {
      return r.readConfig();
    }
  }

  long epoch(Path file) throws Exception {
    try (QuotaRegion r = regions.open(file)) {
      return r.epoch();
    }
  }

  /** Whether the key has an entry in NPU phy's registry (read as a limiter would: entries only). */
  boolean registered(int phy, long key) throws Exception {
    Path f = dataDir().resolve("compute").resolve("npu" + phy + ".reg");
    if (!Files.exists(f)) return false;
    try (var r = new io.vnpu.quota.registry.ComputeRegistries().open(f)) {
      return r.keys().contains(key);
    }
  }

  @Test
  void softChipsArePublishedWithConsumableMemoryAndCores() throws Exception {
    start();
    DraTestBed.await(
        "slice",
        () -> bed.slices().size() == 1 && bed.slices().get(0).getSpec().getDevices().size() == 8);
    var d = bed.slices().get(0).getSpec().getDevices().get(0);
    assertThat(d.getAllowMultipleAllocations()).isTrue();
    assertThat(d.getCapacity()).containsOnlyKeys("memory", "cores");
    DeviceCapacity mem = d.getCapacity().get("memory");
    assertThat(mem.getValue()).isEqualTo(new Quantity("64Gi"));
    assertThat(mem.getRequestPolicy().getDefault()).isEqualTo(new Quantity("64Gi"));
    assertThat(mem.getRequestPolicy().getValidRange().getMin()).isEqualTo(new Quantity("1Mi"));
    assertThat(mem.getRequestPolicy().getValidRange().getMax()).isEqualTo(new Quantity("64Gi"));
    assertThat(mem.getRequestPolicy().getValidRange().getStep()).isEqualTo(new Quantity("1Mi"));
    DeviceCapacity cores = d.getCapacity().get("cores");
    assertThat(cores.getValue()).isEqualTo(new Quantity("100"));
    assertThat(cores.getRequestPolicy().getDefault()).isEqualTo(new Quantity("100"));
    assertThat(cores.getRequestPolicy().getValidRange().getMin()).isEqualTo(new Quantity("1"));
    assertThat(cores.getRequestPolicy().getValidRange().getMax()).isEqualTo(new Quantity("100"));
    assertThat(cores.getRequestPolicy().getValidRange().getStep()).isEqualTo(new Quantity("1"));
  }

  @Test
  void openFuyaoCapacityNamesArePublishedAndPrepared() throws Exception {
    bed.capacityNames = SoftCapacityNames.OPENFUYAO;
    start();
    DraTestBed.await("slice", () -> bed.slices().size() == 1);
    var d = bed.slices().get(0).getSpec().getDevices().get(2);
    assertThat(d.getCapacity()).containsOnlyKeys("memCapacity", "coreCapacity");
    assertThat(d.getCapacity().get("coreCapacity").getRequestPolicy().getDefault())
        .isEqualTo(new Quantity("100"));

    NodePrepareResourceResponse r =
        prepare(
            "of",
            List.of(
                share("npu", "npu-2", "s1", Map.of("memCapacity", "6Gi", "coreCapacity", "40"))),
            List.of());
    assertThat(r.getError()).isEmpty();
    DeviceQuota q = regionConfig(region(uid, "npu")).devices().get(0);
    assertThat(q.memLimitBytes()).isEqualTo(6 * GIB);
    assertThat(q.computeWeight()).isEqualTo(40);
    assertThat(q.computeCapPct()).isEqualTo(40);
    assertThat(q.physId()).isEqualTo(2);

    // a claim written with HAMi's names does not fit the openFuyao-named device: per-claim error
    assertThat(prepare("hami", List.of(soft("npu-2", "s2", "1Gi", "10")), List.of()).getError())
        .isEqualTo(
            "ResourceClaim demo/hami: status.allocation.devices.results[0]"
                + ".consumedCapacity.memCapacity: missing (the soft share needs it; consumed: [cores,"
                + " memory])");
  }

  @Test
  void aSoftClaimOf4GiAnd25PercentIsEnforcedOnItsWorkload() throws Exception {
    start();
    int port = metricsEndpoint().port();
    assertThat(MetricsScrape.sliceSeries(port)).isEmpty();
    NodePrepareResourceResponse r =
        prepare("infer", List.of(soft("npu-0", "s1", "4Gi", "25")), List.of());
    assertThat(r.getError()).isEmpty();
    String cdiName = uid + "-npu-0-s1";
    assertThat(r.getDevices(0).getCdiDeviceIdsList())
        .containsExactly("npu.huawei.com/npu=" + cdiName);
    byte[] bytes = Files.readAllBytes(spec(uid));
    assertThat(CdiSchema.violations(bytes)).isEmpty();

    CdiRuntime ctr = CdiRuntime.of(spec(uid), cdiName);
    Path regionDir = dataDir().resolve("regions").resolve(uid + "_npu");
    assertThat(ctr.env())
        .containsEntry("ASCEND_VISIBLE_DEVICES", "0")
        .containsEntry("NPU_LOCAL_SHM_PATH", "/vnpu-shmem/vnpu_local_shmem")
        .containsEntry("NPU_MEM_QUOTA", "4096")
        .containsEntry("NPU_DRA_CLAIM_UID", uid);
    assertThat(ctr.mounts())
        .containsEntry("/vnpu-shmem", regionDir.toString())
        .containsEntry("/hami-vnpu-core", bed.limiter.hostDir().toString())
        .containsEntry("/etc/ld.so.preload", bed.limiter.preload().toString())
        .containsEntry(
            dataDir().resolve("compute").toString(), dataDir().resolve("compute").toString());

    RegionConfig c = regionConfig(regionDir.resolve("vnpu_local_shmem"));
    assertThat(c.devices())
        .singleElement()
        .satisfies(
            q -> {
              assertThat(q.memLimitBytes()).isEqualTo(4 * GIB);
              assertThat(q.computeWeight()).isEqualTo(25);
              assertThat(q.computeCapPct()).isEqualTo(25);
              assertThat(q.priority()).isEqualTo(Priority.NORMAL);
              assertThat(q.physId()).isZero();
            });
    assertThat(c.policy()).contains(PolicyFlag.MEM_ENFORCE, PolicyFlag.COMPUTE_ENFORCE);
    assertThat(c.registryDir()).isEqualTo(dataDir().resolve("compute").toString());
    assertThat(registered(0, epoch(regionDir.resolve("vnpu_local_shmem")))).isTrue();
    // issue 24: the share's per-slice series appear on /metrics with NodePrepareResources
    assertThat(MetricsScrape.sliceSeries(port))
        .contains(
            "vnpu_slice_memory_limit_bytes{namespace=demo,pod=infer,container=npu,device_index=0} 4.294967296E9",
            "vnpu_slice_processes{namespace=demo,pod=infer,container=npu} 0.0");

    Path sim = tmp.resolve("sim");
    // rtMalloc takes exactly the size asked for (aclrtMalloc pads it, as real ACL does)
    assertThat(run(ctr.npuBurn(sim, "--alloc-via", "rt", "alloc", "4G", "alloc", "1")))
        .containsExactly("alloc ok size=" + 4 * GIB, "alloc fail code=207001 size=1");
    assertThat(run(ctr.npuBurn(sim, "alloc", "3G", "alloc", "1G")))
        .containsExactly("alloc ok size=" + 3 * GIB, "alloc fail code=207001 size=" + GIB);

    List<String> out = run(ctr.npuBurn(sim, "launch", "1000", "300"));
    String line = out.stream().filter(l -> l.startsWith("launch done")).findFirst().orElseThrow();
    double share =
        (double) groundTruthBusyNs(sim, pidOf(sim, ctr, line))
            / Long.parseLong(field(line, "wall_ns"));
    assertThat(share).as("AI-core share of the 25 %% claim").isBetween(0.20, 0.30);

    assertThat(unprepare("infer", uid)).isEmpty();
    // ... and go with NodeUnprepareResources
    assertThat(MetricsScrape.sliceSeries(port)).isEmpty();
    assertThat(regionDir).doesNotExist();
    assertThat(spec(uid)).doesNotExist();
    try (var files = Files.list(dataDir().resolve("compute"))) {
      // what containers mount holds registries only, nothing of any container (issue 23)
      assertThat(files.filter(p -> !p.getFileName().toString().matches("npu\\d+\\.reg")).toList())
          .isEmpty();
    }
  }

  @Test
  void twoSoftClaimsOnOneChipShareItByWeight() throws Exception {
    start();
    // each share's weight and ceiling are the cores it was charged (SoftSliceRule)
    assertThat(prepare("a", List.of(soft("npu-0", "sa", "8Gi", "25")), List.of()).getError())
        .isEmpty();
    String uidA = uid;
    assertThat(prepare("b", List.of(soft("npu-0", "sb", "8Gi", "75")), List.of()).getError())
        .isEmpty();
    String uidB = uid;
    assertThat(regionConfig(region(uidA, "npu")).devices().get(0).computeCapPct()).isEqualTo(25);
    assertThat(regionConfig(region(uidB, "npu")).devices().get(0).computeWeight()).isEqualTo(75);

    CdiRuntime a = CdiRuntime.of(spec(uidA), uidA + "-npu-0-sa");
    CdiRuntime b = CdiRuntime.of(spec(uidB), uidB + "-npu-0-sb");
    double[] shares = weighted(a, b, tmp.resolve("sim1"));
    if (shares[0] + shares[1] < 0.90) {
      // both saturate, so an idle device means the host did not run them: measure once more
      shares = weighted(a, b, tmp.resolve("sim2"));
    }
    assertThat(shares[0]).as("weight 25 of 25:75").isBetween(0.18, 0.32);
    assertThat(shares[1]).as("weight 75 of 25:75").isBetween(0.68, 0.82);
  }

  /**
   * Both workloads burn for 1 s, 2 s (measured) and 1 s at once, so the measured phases overlap
   * whatever their start-up skew; the share of each is its phase's device time over its wall time.
   */
  double[] weighted(CdiRuntime a, CdiRuntime b, Path sim) throws Exception {
    String[] steps = {"burn", "1000", "1", "burn", "1000", "2", "burn", "1000", "1"};
    Process pa = a.npuBurn(sim, steps).start();
    Process pb = b.npuBurn(sim, steps).start();
    List<String> oa = finish(pa);
    List<String> ob = finish(pb);
    return new double[] {phaseShare(oa), phaseShare(ob)};
  }

  static double phaseShare(List<String> out) {
    String line =
        out.stream().filter(l -> l.startsWith("burn done")).skip(1).findFirst().orElseThrow();
    return (double) Long.parseLong(field(line, "busy_ns")) / Long.parseLong(field(line, "wall_ns"));
  }

  @Test
  void aRestartBetweenPrepareAndUnprepareNeitherLeaksNorCreatesTwice() throws Exception {
    start();
    assertThat(prepare("c1", List.of(soft("npu-1", "s1", "2Gi", "30")), List.of()).getError())
        .isEmpty();
    String uid1 = uid;
    Path file = region(uid1, "npu");
    long key = epoch(file);
    assertThat(registered(1, key)).isTrue();

    plugin.close();
    // what a crash between creating a region and recording it would leave
    Path orphan = Files.createDirectories(dataDir().resolve("regions").resolve("gone-npu"));
    plugin = bed.startedPlugin();
    DraTestBed.await("NPUs rediscovered", () -> plugin.inventory().devices().size() == 8);
    assertThat(orphan).doesNotExist();
    assertThat(file).exists();
    NodePrepareResourceResponse again =
        kubelet.prepareV1(draSocket(), claim("demo", uid1, "c1")).getClaimsOrThrow(uid1);
    assertThat(again.getError()).isEmpty();
    assertThat(again.getDevices(0).getCdiDeviceIdsList())
        .containsExactly("npu.huawei.com/npu=" + uid1 + "-npu-1-s1");
    // the same region (same epoch), not a second one
    assertThat(epoch(file)).isEqualTo(key);
    assertThat(
            plugin
                .state()
                .snapshot()
                .preparedClaims()
                .get(uid1)
                .devices()
                .get(0)
                .soft()
                .registryKey())
        .isEqualTo(key);

    assertThat(unprepare("c1", uid1)).isEmpty();
    assertThat(file.getParent()).doesNotExist();
    assertThat(registered(1, key)).isFalse();
    assertThat(plugin.state().snapshot().preparedClaims()).isEmpty();
    plugin.close();
    plugin = null;
    try (var r =
        new io.vnpu.quota.registry.ComputeRegistries()
            .open(dataDir().resolve("compute").resolve("npu1.reg"))) {
      assertThat(r.entries()).isEmpty();
    }
  }

  @Test
  void aMultiDeviceClaimGetsItsOwnAmountPerDeviceInOneRegion() throws Exception {
    start();
    NodePrepareResourceResponse r =
        prepare(
            "two",
            List.of(soft("npu-5", "s1", "3Gi", "20"), soft("npu-3", "s2", "5Gi", "60")),
            List.of(config("FromClass", List.of("npu"), npuConfig("priority", "high"))));
    assertThat(r.getError()).isEmpty();
    RegionConfig c = regionConfig(region(uid, "npu"));
    // ASCEND_VISIBLE_DEVICES=3,5: entry 0 is npu-3, entry 1 npu-5
    assertThat(c.devices()).extracting(DeviceQuota::physId).containsExactly(3, 5);
    assertThat(c.devices())
        .extracting(DeviceQuota::memLimitBytes)
        .containsExactly(5 * GIB, 3 * GIB);
    assertThat(c.devices()).extracting(DeviceQuota::computeCapPct).containsExactly(60, 20);
    assertThat(c.devices()).extracting(DeviceQuota::priority).containsOnly(Priority.HIGH);
    CdiRuntime ctr = CdiRuntime.of(spec(uid), uid + "-npu-5-s1");
    assertThat(ctr.env())
        .containsEntry("ASCEND_VISIBLE_DEVICES", "3,5")
        .containsEntry("NPU_MEM_QUOTA", "5120");
  }

  @Test
  void aMissingLimiterFailsTheClaimNamingTheFileAndCreatesNothing() throws Exception {
    bed.limiter =
        io.vnpu.kube.limiter.LimiterFiles.hami(Files.createDirectories(tmp.resolve("empty")));
    start();
    NodePrepareResourceResponse r =
        prepare("nolim", List.of(soft("npu-0", "s1", "1Gi", "10")), List.of());
    assertThat(r.getError())
        .startsWith("ResourceClaim demo/nolim: preparing the soft share" + " failed: ")
        .contains(tmp.resolve("empty").resolve("libvnpu.so").toString());
    assertThat(dataDir().resolve("regions").resolve(uid + "_npu")).doesNotExist();
    assertThat(spec(uid)).doesNotExist();
    assertThat(plugin.state().snapshot().preparedClaims()).doesNotContainKey(uid);
  }

  @Test
  void aSharingModeOtherThanTheChipsFailsTheClaimAndWholeTakesTheWholeChipWithoutLimiter()
      throws Exception {
    start();
    assertThat(
            prepare(
                    "h",
                    List.of(soft("npu-4", "s1", "4Gi", "25")),
                    List.of(config("FromClass", List.of(), npuConfig("sharing", "hard"))))
                .getError())
        .isEqualTo(
            "ResourceClaim demo/h: status.allocation.devices.results[0]: NpuConfig"
                + " sharing = hard: the device is a soft share of npu-4 (memory 4Gi, cores 25), which"
                + " is sharing soft");
    // the claim's own entry comes after the class's and wins
    assertThat(
            prepare(
                    "w",
                    List.of(soft("npu-4", "s2", "64Gi", "100")),
                    List.of(
                        config("FromClaim", List.of(), npuConfig("sharing", "whole")),
                        config("FromClass", List.of(), npuConfig("sharing", "soft"))))
                .getError())
        .isEmpty();
    assertThat(dataDir().resolve("regions").resolve(uid + "_npu")).doesNotExist();
    CdiRuntime ctr = CdiRuntime.of(spec(uid), uid + "-npu-4-s2");
    assertThat(ctr.env()).doesNotContainKey("NPU_LOCAL_SHM_PATH");
    assertThat(ctr.mounts()).doesNotContainKey("/etc/ld.so.preload");
    // a partial share cannot be taken whole
    assertThat(
            prepare(
                    "p",
                    List.of(soft("npu-6", "s3", "4Gi", "100")),
                    List.of(config("FromClaim", List.of("npu"), npuConfig("sharing", "whole"))))
                .getError())
        .endsWith(
            "NpuConfig sharing = whole: the device is a soft share of npu-6 (memory 4Gi,"
                + " cores 100), which is sharing soft");
  }

  // issue 24: a claim's own NpuConfig asking for more than consumedCapacity charged is refused,
  // naming the claim, request, device and field; nothing is prepared for it, the neighbour keeps
  // what it was charged
  @Test
  void aClaimsOwnConfigNeverRaisesItsShareAboveWhatWasCharged() throws Exception {
    start();
    assertThat(prepare("fair", List.of(soft("npu-2", "s1", "8Gi", "75")), List.of()).getError())
        .isEmpty();
    String fair = uid;
    String at = "status.allocation.devices.results[0] (request npu, device npu-2): NpuConfig ";
    Map<Object[], String> escapes = new LinkedHashMap<>();
    escapes.put(
        new Object[] {"computeWeight", 10000, "computeCap", 0},
        "computeWeight = 10000: more than the 1 % AI Core the scheduler charged (consumedCapacity"
            + " {memory: 1Gi, cores: 1})");
    escapes.put(
        new Object[] {"computeCap", 0},
        "computeCap = 0: no ceiling on a slice charged 1 %" + " AI Core");
    escapes.put(new Object[] {"computeCap", 2}, "computeCap = 2: more than the 1 % AI Core");
    escapes.put(new Object[] {"priority", "high"}, "priority = high: above the normal priority");
    escapes.put(
        new Object[] {"memoryOnly", true},
        "memoryOnly = true: no compute limit on a slice" + " charged 1 % AI Core");
    int n = 0;
    for (Map.Entry<Object[], String> e : escapes.entrySet()) {
      String name = "greedy" + n++;
      NodePrepareResourceResponse r =
          prepare(
              name,
              List.of(soft("npu-2", "s2", "1Gi", "1")),
              List.of(config("FromClaim", List.of(), npuConfig(e.getKey()))));
      assertThat(r.getError())
          .as(java.util.Arrays.toString(e.getKey()))
          .startsWith("ResourceClaim demo/" + name + ": " + at + e.getValue())
          .endsWith("a slice's own settings may lower what was charged, never raise it");
      assertThat(dataDir().resolve("regions").resolve(uid + "_npu")).doesNotExist();
      assertThat(spec(uid)).doesNotExist();
    }
    try (var reg =
        new io.vnpu.quota.registry.ComputeRegistries()
            .open(dataDir().resolve("compute").resolve("npu2.reg"))) {
      assertThat(reg.entries())
          .extracting(x -> List.of(x.weight(), x.capPct()))
          .containsExactly(List.of(75, 75));
    }
    // lowering is fine: weight, ceiling and memory-only on a whole-chip charge
    assertThat(
            prepare(
                    "modest",
                    List.of(soft("npu-2", "s3", "1Gi", "20")),
                    List.of(
                        config(
                            "FromClaim",
                            List.of(),
                            npuConfig("computeWeight", 5, "computeCap", 10))))
                .getError())
        .isEmpty();
    assertThat(regionConfig(region(uid, "npu")).devices().get(0))
        .extracting(DeviceQuota::computeWeight, DeviceQuota::computeCapPct)
        .containsExactly(5, 10);
    assertThat(
            prepare(
                    "whole",
                    List.of(soft("npu-6", "s1", "4Gi", "100")),
                    List.of(config("FromClaim", List.of(), npuConfig("memoryOnly", true))))
                .getError())
        .isEmpty();
    assertThat(unprepare("fair", fair)).isEmpty();
  }

  // issue 28: the claim's opaque config picks the sharing policy within the charge; elastic
  // (borrowing
  // idle time) only where the DeviceClass configuration, the administrator's, grants it
  @Test
  void theSharingPolicyComesFromOpaqueConfigAndNeverRaisesTheCharge() throws Exception {
    start();
    assertThat(
            prepare(
                    "be",
                    List.of(soft("npu-2", "s1", "1Gi", "25")),
                    List.of(config("FromClaim", List.of(), npuConfig("policy", "best-effort"))))
                .getError())
        .isEmpty();
    RegionConfig be = regionConfig(region(uid, "npu"));
    assertThat(be.sharingPolicy()).contains(io.vnpu.api.slice.SharingPolicy.BEST_EFFORT);
    assertThat(be.devices().get(0))
        .extracting(DeviceQuota::computeWeight, DeviceQuota::computeCapPct)
        .containsExactly(25, 25);
    String greedy =
        prepare(
                "greedy",
                List.of(soft("npu-2", "s2", "1Gi", "25")),
                List.of(config("FromClaim", List.of(), npuConfig("policy", "elastic"))))
            .getError();
    assertThat(greedy)
        .startsWith(
            "ResourceClaim demo/greedy: status.allocation.devices.results[0] (request npu,"
                + " device npu-2): NpuConfig policy = elastic: borrowing idle AI-core time beyond the 25 % the scheduler"
                + " charged")
        .endsWith("a slice's own settings may lower what was charged, never raise it");
    assertThat(dataDir().resolve("regions").resolve(uid + "_npu")).doesNotExist();
    assertThat(
            prepare(
                    "granted",
                    List.of(soft("npu-2", "s3", "1Gi", "25")),
                    List.of(config("FromClass", List.of(), npuConfig("policy", "elastic"))))
                .getError())
        .isEmpty();
    RegionConfig el = regionConfig(region(uid, "npu"));
    assertThat(el.sharingPolicy()).contains(io.vnpu.api.slice.SharingPolicy.ELASTIC);
    assertThat(el.devices().get(0))
        .extracting(DeviceQuota::computeWeight, DeviceQuota::computeCapPct)
        .containsExactly(25, 0);
    String bad =
        prepare(
                "typo",
                List.of(soft("npu-2", "s4", "1Gi", "25")),
                List.of(config("FromClaim", List.of(), npuConfig("policy", "burst"))))
            .getError();
    assertThat(bad).contains("policy = burst: expected fixed-share, elastic or best-effort");
  }

  @Test
  void statusDevicesDescribeEachPreparedShare() throws Exception {
    start();
    assertThat(
            prepare(
                    "st",
                    List.of(soft("npu-3", "s1", "4Gi", "25"), soft("npu-1", "s2", "1Gi", "10")),
                    List.of(
                        config("FromClass", List.of(), npuConfig("priority", "high")),
                        config("FromClaim", List.of(), npuConfig("computeWeight", 8))))
                .getError())
        .isEmpty();
    var devices =
        client
            .dynamicResourceAllocation()
            .v1()
            .resourceClaims()
            .inNamespace("demo")
            .withName("st")
            .get()
            .getStatus()
            .getDevices();
    assertThat(devices).hasSize(2);
    var d = devices.get(0);
    assertThat(d.getDriver()).isEqualTo(DRIVER);
    assertThat(d.getPool()).isEqualTo(NODE);
    assertThat(d.getDevice()).isEqualTo("npu-3");
    assertThat(d.getShareID()).isEqualTo("s1");
    String uuid3 = plugin.inventory().devices().get("npu-3").uuid();
    // as on the wire (the client's model wraps the raw extension when read back)
    var wire =
        new tools.jackson.databind.ObjectMapper()
            .readTree(client.raw("/apis/resource.k8s.io/v1/namespaces/demo/resourceclaims/st"));
    assertThat(wire.at("/status/devices/0/data").toString())
        .isEqualTo(
            "{\"uuid\":\""
                + uuid3
                + "\",\"physicalId\":3,\"memory\":4294967296,"
                + "\"cores\":25,\"computeWeight\":8,\"computeCap\":25,\"priority\":\"high\"}");
    assertThat(devices.get(1).getDevice()).isEqualTo("npu-1");
    assertThat(devices.get(1).getShareID()).isEqualTo("s2");
  }

  @Test
  void aForbiddenStatusWriteDoesNotFailThePrepare() throws Exception {
    start();
    ResourceClaim c = allocated("demo", "rbac", "unused", List.of(soft("npu-7", "s1", "2Gi", "5")));
    c = bed.create(c);
    String uid = c.getMetadata().getUid();
    server
        .expect()
        .patch()
        .withPath("/apis/resource.k8s.io/v1/namespaces/demo/resourceclaims/rbac" + "/status")
        .andReturn(
            403,
            new io.fabric8.kubernetes.api.model.StatusBuilder()
                .withCode(403)
                .withReason("Forbidden")
                .withMessage(
                    "resourceclaims.resource.k8s.io"
                        + " \"rbac\" is forbidden: cannot patch resource \"resourceclaims/status\"")
                .build())
        .always();
    NodePrepareResourceResponse r =
        kubelet.prepareV1(draSocket(), claim("demo", uid, "rbac")).getClaimsOrThrow(uid);
    assertThat(r.getError()).isEmpty();
    assertThat(r.getDevices(0).getDeviceName()).isEqualTo("npu-7");
    assertThat(
            client
                .dynamicResourceAllocation()
                .v1()
                .resourceClaims()
                .inNamespace("demo")
                .withName("rbac")
                .get()
                .getStatus()
                .getDevices())
        .isNullOrEmpty();
  }

  // ---- npu-burn ----

  static List<String> run(ProcessBuilder pb) throws Exception {
    return finish(pb.start());
  }

  static List<String> finish(Process p) throws Exception {
    byte[] out = p.getInputStream().readAllBytes();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("npu-burn stderr: %s", err).isZero();
    List<String> lines = new ArrayList<>();
    for (String l : new String(out, StandardCharsets.UTF_8).split("\n")) {
      if (!l.isBlank()) {
        lines.add(
            l.startsWith("launch done") || l.startsWith("burn done")
                ? l
                : l.replaceAll(" (ptr|pid|thread)=\\S+", ""));
      }
    }
    return lines;
  }

  static long pidOf(Path sim, CdiRuntime ctr, String line) {
    return Long.parseLong(field(line, "pid"));
  }

  static String field(String line, String key) {
    for (String kv : line.split(" ")) {
      if (kv.startsWith(key + "=")) {
        return kv.substring(key.length() + 1);
      }
    }
    throw new AssertionError("no " + key + " in " + line);
  }

  /** Device time of process {@code pid} on device 0 as the simulator recorded it. */
  static long groundTruthBusyNs(Path simRoot, long pid) throws Exception {
    Path nativeDir =
        Path.of(System.getProperty("vnpu.native.dir", System.getenv("VNPU_NATIVE_DIR")));
    ProcessBuilder p =
        new ProcessBuilder(
                nativeDir.resolve("cann-sim-busy").toString(),
                "--pid",
                Long.toString(pid),
                "--device",
                "0")
            .redirectErrorStream(true);
    p.environment().put("VNPU_SIM_ROOT", simRoot.toString());
    Process proc = p.start();
    String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(proc.waitFor()).as(out).isZero();
    for (String l : out.split("\n")) {
      if (l.startsWith("busy ")) {
        return Long.parseLong(field(l, "busy_ns"));
      }
    }
    throw new AssertionError("no busy line for pid " + pid + ": " + out);
  }
}
