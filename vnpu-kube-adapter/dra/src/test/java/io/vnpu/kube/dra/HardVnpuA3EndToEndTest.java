package io.vnpu.kube.dra;

import static io.vnpu.kube.dra.DraTestBed.DRIVER;
import static io.vnpu.kube.dra.DraTestBed.NODE;
import static io.vnpu.kube.testing.DraClaims.allocated;
import static io.vnpu.kube.testing.DraKubeletStandIn.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.config.DeviceConfig;
import io.vnpu.api.config.DeviceConfigLoader;
import io.vnpu.api.model.Vnpu;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.DcmiLibrarySource;
import io.vnpu.dcmi.sim.BundledSimulator;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourceResponse;
import io.vnpu.kube.dra.vnpu.BundledTemplates;
import io.vnpu.kube.testing.DraKubeletStandIn;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Issue 28, hard vNPU on 910C / A3 through DRA: the plugin runs on the bundled simulated {@code
 * libdcmi.so} through the real JNA binding, with the kubelet stand-in and the mock API server. The
 * A3 profiles have 16 dies of 64 GiB; {@code A3Inferx8} dies (20 AI Cores) take the 910C templates
 * HAMi ships ({@code vir05_1c_16g}, {@code vir10_3c_32g}), {@code A3x8} training dies (24 AI Cores)
 * only {@code vir06_1c_16g} and {@code vir12_3c_32g}. The test plays the scheduler: a claim asks
 * for {@code memCapacity}, the allocation consumes the smallest of the device's published {@code
 * requestPolicy.validValues} that holds it (KEP-5075's rounding), and the kubelet prepares it.
 */
@EnableKubernetesMockClient(crud = true)
class HardVnpuA3EndToEndTest {

  /** A {@code --device-config} entry for A3 training dies (spec: vNPU templates per chip). */
  static final String A3_TRAINING_CONFIG =
      """
      vnpus:
        configs:
        - chipName: Ascend910
          commonWord: Ascend910C
          resourceName: huawei.com/Ascend910C
          memoryAllocatable: 65536
          memoryCapacity: 65536
          aiCore: 24
          aiCPU: 6
          templates:
            - name: vir06_1c_16g
              memory: 16384
              aiCore: 6
              aiCPU: 1
            - name: vir12_3c_32g
              memory: 32768
              aiCore: 12
              aiCPU: 3
      """;

  KubernetesClient client;

  @TempDir Path tmp;

  private final BundledSimulator sim =
      new BundledSimulator(Path.of(System.getProperty("vnpu.native.dir")));
  private final ObjectMapper json = new ObjectMapper();
  private DcmiDeviceManager dcmi;
  private DraTestBed bed;
  private DraKubeletStandIn kubelet;
  private DraPlugin plugin;
  private final Map<String, String> uids = new java.util.HashMap<>();

  private void start(String profile, DeviceConfig templates, String host) throws Exception {
    Path root = Files.createDirectories(tmp.resolve(host));
    sim.configure(profile, root);
    Path lib = sim.library().orElseThrow(() -> new AssertionError("libdcmi.so not built"));
    DcmiLibrarySource source = new DcmiLibrarySource(lib, "test", List.of(lib));
    dcmi = DcmiDeviceManager.open(source);
    bed = new DraTestBed(root, client);
    bed.hardVnpu = true;
    bed.deviceConfig = templates;
    bed.opener = () -> DcmiDeviceManager.open(source);
    kubelet = new DraKubeletStandIn();
    plugin = bed.startedPlugin();
    DraTestBed.await("16 A3 dies", () -> plugin.inventory().devices().size() == 16);
    DraTestBed.await(
        "slice with 16 dies",
        () -> bed.slices().size() == 1 && bed.slices().get(0).getSpec().getDevices().size() == 16);
  }

  @AfterEach
  void tearDown() {
    if (plugin != null) {
      plugin.close();
    }
    if (kubelet != null) {
      kubelet.close();
    }
    if (dcmi != null) {
      dcmi.close();
    }
  }

  private Device published(String name) {
    return bed.slices().get(0).getSpec().getDevices().stream()
        .filter(d -> d.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  /** The scheduler's rounding: the smallest published valid value that holds the request. */
  private static Quantity rounded(Device device, String request) {
    BigDecimal want = Quantity.getAmountInBytes(new Quantity(request));
    return device.getCapacity().get("memCapacity").getRequestPolicy().getValidValues().stream()
        .filter(v -> Quantity.getAmountInBytes(v).compareTo(want) >= 0)
        .min((a, b) -> Quantity.getAmountInBytes(a).compareTo(Quantity.getAmountInBytes(b)))
        .orElseThrow(
            () -> new AssertionError(request + " fits no valid value of " + device.getName()));
  }

  /**
   * Allocates claim {@code name} one share of {@code device} for {@code request} and prepares it.
   */
  private NodePrepareResourceResponse claimAndPrepare(
      String name, String device, String share, String request) {
    Quantity consumed = rounded(published(device), request);
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
                        .withConsumedCapacity(Map.of("memCapacity", consumed))
                        .build())));
    String uid = c.getMetadata().getUid();
    uids.put(name, uid);
    return kubelet.prepareV1(draSocket(), claim("demo", uid, name)).getClaimsOrThrow(uid);
  }

  private Path draSocket() {
    return Path.of(kubelet.getInfo(bed.registrar.resolve(DRIVER + "-reg.sock")).getEndpoint());
  }

  private List<String> vnpus(int logic) {
    return dcmi.listVnpus(logic).stream().map(Vnpu::templateName).toList();
  }

  @Test
  void a3InferenceDiesArePublishedByTheBundled910cTemplatesAndPreparedAsVnpus() throws Exception {
    start("A3Inferx8", BundledTemplates.load(), "a3-infer");
    Device die = published("npu-1");
    assertThat(die.getAttributes().get("chipName").getString()).isEqualTo("Ascend910");
    assertThat(die.getAllowMultipleAllocations()).isTrue();
    DeviceCapacity mem = die.getCapacity().get("memCapacity");
    assertThat(mem.getValue()).isEqualTo(new Quantity("64Gi"));
    assertThat(mem.getRequestPolicy().getDefault()).isEqualTo(new Quantity("64Gi"));
    assertThat(mem.getRequestPolicy().getValidValues())
        .containsExactly(new Quantity("16Gi"), new Quantity("32Gi"), new Quantity("64Gi"));

    // 10 GiB rounds to 16 GiB (vir05_1c_16g), 20 GiB to 32 GiB (vir10_3c_32g), on the same die
    NodePrepareResourceResponse r1 = claimAndPrepare("c1", "npu-1", "s1", "10Gi");
    assertThat(r1.getError()).isEmpty();
    assertThat(claimAndPrepare("c2", "npu-1", "s2", "20Gi").getError()).isEmpty();
    assertThat(vnpus(1)).containsExactly("vir05_1c_16g", "vir10_3c_32g");
    Vnpu first = dcmi.listVnpus(1).get(0);
    assertThat(first.vnpuId()).isEqualTo(116); // phy 1: IDs from 1*16+100

    assertThat(r1.getDevices(0).getCdiDeviceIdsList())
        .containsExactly("npu.huawei.com/npu=" + uids.get("c1") + "-npu-1-s1");
    JsonNode d =
        json.readTree(
                Files.readAllBytes(
                    bed.cdi.resolve("npu.huawei.com-npu_" + uids.get("c1") + ".json")))
            .get("devices")
            .get(0);
    assertThat(d.at("/containerEdits/deviceNodes/0/hostPath").asString())
        .isEqualTo(bed.dev.resolve("vdavinci116").toString());
    assertThat(d.at("/containerEdits/env").toString())
        .isEqualTo("[\"ASCEND_VISIBLE_DEVICES=116\",\"ASCEND_VNPU_TEMPLATE=vir05_1c_16g\"]");

    // the pod goes: its vNPU goes with it
    assertThat(
            kubelet
                .unprepareV1(draSocket(), claim("demo", uids.get("c1"), "c1"))
                .getClaimsOrThrow(uids.get("c1"))
                .getError())
        .isEmpty();
    assertThat(vnpus(1)).containsExactly("vir10_3c_32g");
  }

  @Test
  void a3TrainingDiesAreCutByTheirOwnTemplates() throws Exception {
    // HAMi's 910C entry is for 20 AI Cores (BundledTemplatesTest: a 24-core die stays whole)
    start(
        "A3x8",
        new DeviceConfigLoader().parse(A3_TRAINING_CONFIG, "device-config.yaml").value(),
        "a3-training");
    assertThat(
            published("npu-2").getCapacity().get("memCapacity").getRequestPolicy().getValidValues())
        .containsExactly(new Quantity("16Gi"), new Quantity("32Gi"), new Quantity("64Gi"));
    assertThat(claimAndPrepare("t1", "npu-2", "s1", "1Gi").getError()).isEmpty();
    assertThat(claimAndPrepare("t2", "npu-2", "s2", "17Gi").getError()).isEmpty();
    assertThat(vnpus(2)).containsExactly("vir06_1c_16g", "vir12_3c_32g");
  }
}
