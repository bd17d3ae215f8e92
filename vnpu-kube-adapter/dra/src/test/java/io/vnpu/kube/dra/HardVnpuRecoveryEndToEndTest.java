package io.vnpu.kube.dra;

import static io.vnpu.kube.dra.DraTestBed.DRIVER;
import static io.vnpu.kube.dra.DraTestBed.NODE;
import static io.vnpu.kube.testing.DraClaims.allocated;
import static io.vnpu.kube.testing.DraKubeletStandIn.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.config.DeviceConfigLoader;
import io.vnpu.api.model.Vnpu;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.DcmiLibrarySource;
import io.vnpu.dcmi.sim.BundledSimulator;
import io.vnpu.kube.dra.checkpoint.Checkpoint;
import io.vnpu.kube.dra.checkpoint.CheckpointStore;
import io.vnpu.kube.dra.checkpoint.PreparedClaim;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourceResponse;
import io.vnpu.kube.dra.vnpu.VnpuRecord;
import io.vnpu.kube.testing.DraKubeletStandIn;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Issue 15 known gaps: hard vNPU records after a corrupt checkpoint and after a reboot, checked
 * through DCMI. The plugin runs on the bundled simulated {@code libdcmi.so} (profile 910B4x8: 32
 * GiB chips, vNPU IDs from {@code phy*16+100}) through the real JNA binding, with the kubelet
 * stand-in and the mock API server; {@code vnpu-sim-ctl} plays the operator, the container runtime
 * ({@code use}: a container holds a vNPU) and the driver after a reboot.
 */
@EnableKubernetesMockClient(crud = true)
class HardVnpuRecoveryEndToEndTest {
  static final String PROFILE = "910B4x8";

  KubernetesClient client;
  io.fabric8.kubernetes.client.server.mock.KubernetesMockServer server;

  @TempDir Path tmp;

  private final BundledSimulator sim =
      new BundledSimulator(Path.of(System.getProperty("vnpu.native.dir")));
  private final ObjectMapper json = new ObjectMapper();
  private DcmiDeviceManager dcmi; // the test's own view of the simulated host
  private DraTestBed bed;
  private DraKubeletStandIn kubelet;
  private DraPlugin plugin;
  private final Map<String, String> uids = new java.util.HashMap<>();

  @BeforeEach
  void setUp() throws Exception {
    sim.configure(PROFILE, tmp);
    Path lib = sim.library().orElseThrow(() -> new AssertionError("libdcmi.so not built"));
    DcmiLibrarySource source = new DcmiLibrarySource(lib, "test", List.of(lib));
    dcmi = DcmiDeviceManager.open(source);
    bed = new DraTestBed(tmp, client);
    bed.hardVnpu = true;
    bed.deviceConfig =
        new DeviceConfigLoader()
            .parse(HardVnpuEndToEndTest.DEVICE_CONFIG, "device-config.yaml")
            .value();
    bed.opener = () -> DcmiDeviceManager.open(source); // each plugin start opens its own
    kubelet = new DraKubeletStandIn();
    plugin = start();
  }

  @AfterEach
  void tearDown() {
    if (plugin != null) {
      plugin.close();
    }
    kubelet.close();
    dcmi.close();
  }

  private DraPlugin start() throws Exception {
    DraPlugin p = bed.startedPlugin();
    DraTestBed.await("8 NPUs", () -> p.inventory().devices().size() == 8);
    DraTestBed.await("vNPU records checked", () -> !p.state().snapshot().vnpuCheckPending());
    return p;
  }

  private Path draSocket() {
    return Path.of(kubelet.getInfo(bed.registrar.resolve(DRIVER + "-reg.sock")).getEndpoint());
  }

  /** Creates claim {@code name} allocated one share of {@code device} and prepares it. */
  private NodePrepareResourceResponse prepare(
      String name, String device, String share, String mem) {
    ResourceClaim c =
        bed.create(
            allocated(
                "demo",
                name,
                "unused-" + name,
                List.of(
                    new DeviceRequestAllocationResultBuilder()
                        .withRequest("vnpu")
                        .withDriver(DRIVER)
                        .withPool(NODE)
                        .withDevice(device)
                        .withShareID(share)
                        .withConsumedCapacity(Map.of("memCapacity", new Quantity(mem)))
                        .build())));
    uids.put(name, c.getMetadata().getUid());
    return again(name);
  }

  /** The kubelet's NodePrepareResources of claim {@code name} (again). */
  private NodePrepareResourceResponse again(String name) {
    String uid = uids.get(name);
    return kubelet.prepareV1(draSocket(), claim("demo", uid, name)).getClaimsOrThrow(uid);
  }

  private String unprepare(String name) {
    String uid = uids.get(name);
    return kubelet
        .unprepareV1(draSocket(), claim("demo", uid, name))
        .getClaimsOrThrow(uid)
        .getError();
  }

  private void ctl(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(sim.ctl().toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put(BundledSimulator.PROFILE_ENV, PROFILE);
    pb.environment().put(BundledSimulator.ROOT_ENV, tmp.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("vnpu-sim-ctl finished").isTrue();
    assertThat(p.exitValue()).as("vnpu-sim-ctl %s: %s", cmd, out).isZero();
  }

  /** "id template [in use]" of each vNPU on logic ID {@code logic}, as DCMI lists them. */
  private List<String> vnpus(int logic) {
    return dcmi.listVnpus(logic).stream().map(HardVnpuRecoveryEndToEndTest::show).toList();
  }

  private static String show(Vnpu v) {
    return v.vnpuId() + " " + v.templateName() + (v.inUse() ? " in use" : "");
  }

  private PreparedClaim entry(String name) {
    return plugin.state().snapshot().preparedClaims().get(uids.get(name));
  }

  private JsonNode cdiDevice(String name) throws Exception {
    return json.readTree(Files.readAllBytes(cdiSpec(name))).get("devices").get(0);
  }

  private Path cdiSpec(String name) {
    return bed.cdi.resolve("npu.huawei.com-npu_" + uids.get(name) + ".json");
  }

  @Test
  void aCorruptCheckpointIsRebuiltWithItsVnpusFromDcmiAndTheCdiSpecs() throws Exception {
    assertThat(prepare("c1", "npu-0", "s1", "10000Mi").getError()).isEmpty();
    assertThat(prepare("c2", "npu-0", "s2", "8Gi").getError()).isEmpty();
    assertThat(vnpus(0)).containsExactly("100 vir10_3c_16g", "101 vir05_1c_8g");
    // a container runs on c1's vNPU; a prepare crashed right after DCMI created vNPU 102; on chip
    // 1 a vNPU nobody recorded is in use by a container
    ctl("use", "0", "100", "1");
    ctl("create", "0", "vir05_1c_8g");
    ctl("create", "1", "vir05_1c_8g");
    ctl("use", "1", "116", "1");
    assertThat(vnpus(0))
        .containsExactly("100 vir10_3c_16g in use", "101 vir05_1c_8g", "102 vir05_1c_8g");

    plugin.close();
    Path file = plugin.sockets().dataDir().resolve(CheckpointStore.FILE_NAME);
    Files.writeString(file, "{\"version\":\"v1\",\"checksum\":\"sha256:00\",\"checkpoint\":{}}");
    plugin = start();

    // the held vNPUs are kept (one in use, one not), the lost one is destroyed, the in-use
    // stranger is left
    assertThat(vnpus(0)).containsExactly("100 vir10_3c_16g in use", "101 vir05_1c_8g");
    assertThat(vnpus(1)).containsExactly("116 vir05_1c_8g in use");
    try (Stream<Path> s = Files.list(file.getParent())) {
      assertThat(s.map(p -> p.getFileName().toString()))
          .anyMatch(n -> n.startsWith("checkpoint.json.corrupt-"));
    }
    Checkpoint cp = plugin.state().snapshot();
    assertThat(cp.vnpuCheckPending()).isFalse();
    assertThat(entry("c1").rebuilt()).isTrue();
    assertThat(entry("c1").devices())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.deviceName()).isEqualTo("npu-0");
              assertThat(d.shareId()).isEqualTo("s1");
              assertThat(d.vnpu()).isEqualTo(new VnpuRecord(0, "vir10_3c_16g", 16384, 100));
            });
    assertThat(entry("c2").devices())
        .singleElement()
        .satisfies(
            d -> assertThat(d.vnpu()).isEqualTo(new VnpuRecord(0, "vir05_1c_8g", 8192, 101)));

    // the kubelet repeats the prepare: same CDI device, same vNPU, nothing created
    NodePrepareResourceResponse r = again("c1");
    assertThat(r.getError()).isEmpty();
    assertThat(r.getDevices(0).getCdiDeviceIdsList())
        .containsExactly("npu.huawei.com/npu=" + uids.get("c1") + "-npu-0-s1");
    assertThat(entry("c1").rebuilt()).isFalse();
    assertThat(entry("c1").devices().get(0).vnpu().vnpuId()).isEqualTo(100);
    assertThat(cdiDevice("c1").at("/containerEdits/deviceNodes/0/hostPath").asString())
        .isEqualTo(bed.dev.resolve("vdavinci100").toString());
    assertThat(vnpus(0)).containsExactly("100 vir10_3c_16g in use", "101 vir05_1c_8g");

    // unprepare destroys the vNPUs the rebuilt records hold: nothing leaks
    assertThat(unprepare("c2")).isEmpty();
    assertThat(vnpus(0)).containsExactly("100 vir10_3c_16g in use");
    ctl("use", "0", "100", "0");
    assertThat(unprepare("c1")).isEmpty();
    assertThat(vnpus(0)).isEmpty();
    assertThat(plugin.state().snapshot().preparedClaims()).isEmpty();
  }

  @Test
  void afterARebootRecordedVnpusAreKeptReCreatedOrTheirClaimDropped() throws Exception {
    assertThat(prepare("c1", "npu-0", "s1", "10000Mi").getError()).isEmpty();
    assertThat(prepare("c2", "npu-1", "s1", "8Gi").getError()).isEmpty();
    assertThat(prepare("c3", "npu-2", "s1", "8Gi").getError()).isEmpty();
    assertThat(List.of(vnpus(0), vnpus(1), vnpus(2)))
        .containsExactly(
            List.of("100 vir10_3c_16g"), List.of("116 vir05_1c_8g"), List.of("132 vir05_1c_8g"));

    // reboot: vNPUs and the tmpfs CDI directory are gone; at boot an operator's static vNPU
    // takes ID 100 on chip 0 and a container uses it, the driver's configuration recovery brings
    // back chip 1's vNPU, chip 2 fills up with two in-use static vNPUs
    plugin.close();
    ctl("reset");
    ctl("create", "0", "vir05_1c_8g");
    ctl("use", "0", "100", "1");
    ctl("create", "1", "vir05_1c_8g");
    ctl("create", "2", "vir10_3c_16g");
    ctl("create", "2", "vir10_3c_16g");
    ctl("use", "2", "132", "1");
    ctl("use", "2", "133", "1");
    try (Stream<Path> s = Files.list(bed.cdi)) {
      for (Path p : s.toList()) {
        Files.delete(p);
      }
    }
    bed.bootId = "boot-2";
    plugin = start();

    Checkpoint cp = plugin.state().snapshot();
    assertThat(cp.nodeBootId()).isEqualTo("boot-2");
    assertThat(cp.vnpuCheckPending()).isFalse();
    // chip 0: re-created next to the static one, under a new ID, CDI spec pointing at it
    assertThat(vnpus(0)).containsExactly("100 vir05_1c_8g in use", "101 vir10_3c_16g");
    assertThat(entry("c1").devices().get(0).vnpu())
        .isEqualTo(new VnpuRecord(0, "vir10_3c_16g", 16384, 101));
    JsonNode d1 = cdiDevice("c1");
    assertThat(d1.get("name").asString()).isEqualTo(uids.get("c1") + "-npu-0-s1");
    assertThat(d1.at("/containerEdits/deviceNodes/0/hostPath").asString())
        .isEqualTo(bed.dev.resolve("vdavinci101").toString());
    assertThat(d1.at("/containerEdits/env").toString())
        .isEqualTo("[\"ASCEND_VISIBLE_DEVICES=101\",\"ASCEND_VNPU_TEMPLATE=vir10_3c_16g\"]");
    // chip 1: restored by the driver, kept as it is
    assertThat(vnpus(1)).containsExactly("116 vir05_1c_8g");
    assertThat(entry("c2").devices().get(0).vnpu())
        .isEqualTo(new VnpuRecord(1, "vir05_1c_8g", 8192, 116));
    assertThat(cdiDevice("c2").at("/containerEdits/deviceNodes/0/hostPath").asString())
        .isEqualTo(bed.dev.resolve("vdavinci116").toString());
    // chip 2: no room to re-create: the claim is dropped, its CDI spec gone, the static vNPUs left
    assertThat(vnpus(2)).containsExactly("132 vir10_3c_16g in use", "133 vir10_3c_16g in use");
    assertThat(entry("c3")).isNull();
    assertThat(cdiSpec("c3")).doesNotExist();
    assertThat(cp.preparedClaims()).hasSize(2);

    // the kubelet's repeated prepares: c1 answers from its record, c3 says why it cannot
    NodePrepareResourceResponse r1 = again("c1");
    assertThat(r1.getError()).isEmpty();
    assertThat(r1.getDevices(0).getCdiDeviceIdsList())
        .containsExactly("npu.huawei.com/npu=" + uids.get("c1") + "-npu-0-s1");
    assertThat(again("c3").getError())
        .startsWith("ResourceClaim demo/c3: creating the vNPU" + " failed: ");
    assertThat(vnpus(2)).containsExactly("132 vir10_3c_16g in use", "133 vir10_3c_16g in use");
    assertThat(entry("c3")).isNull();
  }

  @Test
  void aVnpuDestroyedOutsideThePluginIsCheckedAtRestartReCreatedOrItsClaimDropped()
      throws Exception {
    assertThat(prepare("c1", "npu-0", "s1", "10000Mi").getError()).isEmpty();
    assertThat(prepare("c2", "npu-1", "s1", "8Gi").getError()).isEmpty();
    assertThat(List.of(vnpus(0), vnpus(1)))
        .containsExactly(List.of("100 vir10_3c_16g"), List.of("116 vir05_1c_8g"));

    // same boot, intact checkpoint: an operator destroys both vNPUs while the plugin is down and
    // fills chip 1 with in-use static vNPUs
    plugin.close();
    ctl("destroy", "1", "116");
    ctl("destroy", "0", "100");
    ctl("create", "1", "vir10_3c_16g");
    ctl("create", "1", "vir10_3c_16g");
    ctl("use", "1", "116", "1");
    ctl("use", "1", "117", "1");
    plugin = start();

    // chip 0: created again for its claim, the CDI spec names the new vNPU
    assertThat(vnpus(0)).containsExactly("100 vir10_3c_16g");
    assertThat(entry("c1").devices().get(0).vnpu())
        .isEqualTo(new VnpuRecord(0, "vir10_3c_16g", 16384, 100));
    NodePrepareResourceResponse r1 = again("c1");
    assertThat(r1.getError()).isEmpty();
    assertThat(cdiDevice("c1").at("/containerEdits/deviceNodes/0/hostPath").asString())
        .isEqualTo(bed.dev.resolve("vdavinci100").toString());
    // chip 1: no room: never reported prepared, the kubelet's prepare says why
    assertThat(entry("c2")).isNull();
    assertThat(cdiSpec("c2")).doesNotExist();
    assertThat(again("c2").getError())
        .startsWith("ResourceClaim demo/c2: creating the vNPU" + " failed: ");
  }

  @Test
  void aClaimDeletedWithoutUnprepareIsReleasedAtRestartAndItsChipServesTheNextClaim()
      throws Exception {
    assertThat(prepare("c1", "npu-0", "s1", "32Gi").getError()).isEmpty(); // the whole chip
    assertThat(prepare("c2", "npu-1", "s1", "8Gi").getError()).isEmpty();
    assertThat(vnpus(1)).containsExactly("116 vir05_1c_8g");

    // the pod is force-deleted and its claim deleted while the plugin is down: the kubelet
    // never calls NodeUnprepareResources
    plugin.close();
    client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace("demo")
        .withName("c2")
        .delete();
    String gone = uids.get("c2");
    plugin = start();
    DraTestBed.await(
        "the gone claim released",
        () -> !plugin.state().snapshot().preparedClaims().containsKey(gone));
    assertThat(vnpus(1)).isEmpty();
    assertThat(bed.cdi.resolve("npu.huawei.com-npu_" + gone + ".json")).doesNotExist();
    assertThat(entry("c1")).isNotNull(); // still in the API server: kept

    // the scheduler sees npu-1 free and gives its whole memory to a new claim
    assertThat(prepare("c3", "npu-1", "s9", "32Gi").getError()).isEmpty();

    // while the plugin runs: deleted and re-created under the same name (another UID)
    client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace("demo")
        .withName("c1")
        .delete();
    String replaced = uids.get("c1");
    bed.create(
        allocated(
            "demo",
            "c1",
            "unused",
            List.of(
                new DeviceRequestAllocationResultBuilder()
                    .withRequest("vnpu")
                    .withDriver(DRIVER)
                    .withPool(NODE)
                    .withDevice("npu-2")
                    .build())));
    DraTestBed.await(
        "the replaced claim released",
        () -> !plugin.state().snapshot().preparedClaims().containsKey(replaced));
    assertThat(plugin.state().snapshot().preparedClaims()).containsOnlyKeys(uids.get("c3"));
  }

  @Test
  void aClaimTheApiServerCannotAnswerForIsKept() throws Exception {
    assertThat(prepare("c1", "npu-1", "s1", "8Gi").getError()).isEmpty();
    server
        .expect()
        .get()
        .withPath("/apis/resource.k8s.io/v1/namespaces/demo/resourceclaims/c1")
        .andReturn(500, "etcdserver: request timed out")
        .always();
    client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace("demo")
        .withName("c1")
        .delete();
    Thread.sleep(bed.claimReconcile.toMillis() * 5); // five checks
    assertThat(entry("c1")).isNotNull();
    assertThat(vnpus(1)).containsExactly("116 vir05_1c_8g");
  }
}
