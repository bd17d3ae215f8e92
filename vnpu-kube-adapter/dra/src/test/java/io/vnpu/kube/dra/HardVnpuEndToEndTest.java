package io.vnpu.kube.dra;

import static io.vnpu.kube.dra.DraTestBed.DRIVER;
import static io.vnpu.kube.dra.DraTestBed.NODE;
import static io.vnpu.kube.testing.DraClaims.allocated;
import static io.vnpu.kube.testing.DraKubeletStandIn.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.config.DeviceConfigLoader;
import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.kube.dra.cdi.CdiSchema;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourceResponse;
import io.vnpu.kube.testing.DraKubeletStandIn;
import io.vnpu.kube.testing.MutableDeviceManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Hard vNPU by {@code memCapacity} ({@code --enable-hard-vnpu}) against the kubelet stand-in and
 * the mock API server: a simulated 910B4 (32 GiB, templates of HAMi's shipped {@code
 * device-config.yaml}: {@code vir05_1c_8g} 8192 MiB, {@code vir10_3c_16g} 16384 MiB) and a 310P3,
 * which is never split.
 */
@EnableKubernetesMockClient(crud = true)
class HardVnpuEndToEndTest {

  /** The 910B4 and 310P3 entries of HAMi's hami-scheduler-device ConfigMap, same values. */
  static final String DEVICE_CONFIG =
      """
      vnpus:
        hamiVnpuCore: false
        configs:
        - chipName: 910B4
          commonWord: Ascend910B4
          resourceName: huawei.com/Ascend910B4
          resourceMemoryName: huawei.com/Ascend910B4-memory
          memoryAllocatable: 32768
          memoryCapacity: 32768
          aiCore: 20
          aiCPU: 7
          templates:
            - name: vir05_1c_8g
              memory: 8192
              aiCore: 5
              aiCPU: 1
            - name: vir10_3c_16g
              memory: 16384
              aiCore: 10
              aiCPU: 3
        - chipName: 310P3
          commonWord: Ascend310P
          resourceName: huawei.com/Ascend310P
          resourceMemoryName: huawei.com/Ascend310P-memory
          memoryAllocatable: 21527
          memoryCapacity: 24576
          aiCore: 8
          aiCPU: 7
          templates:
            - name: vir01
              memory: 3072
              aiCore: 1
              aiCPU: 1
      """;

  KubernetesClient client;

  @TempDir Path tmp;

  DraTestBed bed;
  DraKubeletStandIn kubelet;
  DraPlugin plugin;
  final ObjectMapper json = new ObjectMapper();

  @BeforeEach
  void setUp() throws Exception {
    bed = new DraTestBed(tmp, client);
    bed.hardVnpu = true;
    bed.deviceConfig = new DeviceConfigLoader().parse(DEVICE_CONFIG, "device-config.yaml").value();
    bed.dcmi.setNpus(
        List.of(
            MutableDeviceManager.npu910b4(0, 0),
            new Npu(
                "00003001-00000000-00000000-00000000-00000001",
                1,
                1,
                1,
                0,
                "310P3",
                24L << 30,
                8,
                7,
                DeviceHealth.HEALTHY,
                0)));
    bed.dcmi.enableVnpus(Map.of("vir05_1c_8g", 8192L, "vir10_3c_16g", 16384L), bed.dev);
    kubelet = new DraKubeletStandIn();
    plugin = bed.startedPlugin();
  }

  @AfterEach
  void tearDown() {
    if (plugin != null) {
      plugin.close();
    }
    kubelet.close();
  }

  Path draSocket() {
    return Path.of(kubelet.getInfo(bed.registrar.resolve(DRIVER + "-reg.sock")).getEndpoint());
  }

  static DeviceRequestAllocationResult share(String device, String shareId, String mem) {
    return new DeviceRequestAllocationResultBuilder()
        .withRequest("vnpu")
        .withDriver(DRIVER)
        .withPool(NODE)
        .withDevice(device)
        .withShareID(shareId)
        .withConsumedCapacity(Map.of("memCapacity", new Quantity(mem)))
        .build();
  }

  /** The UID the API server gave the claim (the mock server assigns its own). */
  String uid;

  NodePrepareResourceResponse prepare(String name, String shareId, String mem) {
    ResourceClaim c =
        bed.create(
            allocated("demo", name, "unused-" + name, List.of(share("npu-0", shareId, mem))));
    uid = c.getMetadata().getUid();
    return kubelet.prepareV1(draSocket(), claim("demo", uid, name)).getClaimsOrThrow(uid);
  }

  @Test
  void publishes910bAsSharedByTemplateSizesAnd310pWhole() throws Exception {
    DraTestBed.await(
        "slice with 2 NPUs",
        () -> bed.slices().size() == 1 && bed.slices().get(0).getSpec().getDevices().size() == 2);
    List<Device> devices = bed.slices().get(0).getSpec().getDevices();
    Device b4 = devices.get(0);
    assertThat(b4.getName()).isEqualTo("npu-0");
    assertThat(b4.getAllowMultipleAllocations()).isTrue();
    DeviceCapacity mem = b4.getCapacity().get("memCapacity");
    assertThat(mem.getValue()).isEqualTo(new Quantity("32Gi"));
    assertThat(mem.getRequestPolicy().getDefault()).isEqualTo(new Quantity("32Gi"));
    assertThat(mem.getRequestPolicy().getValidValues())
        .containsExactly(new Quantity("8Gi"), new Quantity("16Gi"), new Quantity("32Gi"));
    Device p = devices.get(1);
    assertThat(p.getName()).isEqualTo("npu-1");
    assertThat(p.getAllowMultipleAllocations()).isNull();
    assertThat(p.getCapacity().get("memCapacity").getRequestPolicy()).isNull();
  }

  @Test
  void twoClaimsOfTenThousandMiGetTwo16gVnpusAndAThirdIsNeverPrepared() throws Exception {
    DraTestBed.await("NPUs discovered", () -> plugin.inventory().devices().size() == 2);
    NodePrepareResourceResponse r1 = prepare("c1", "s1", "10000Mi");
    String uid1 = uid;
    assertThat(r1.getError()).isEmpty();
    assertThat(r1.getDevicesList())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.getDeviceName()).isEqualTo("npu-0");
              assertThat(d.getCdiDeviceIdsList())
                  .containsExactly("npu.huawei.com/npu=" + uid1 + "-npu-0-s1");
            });
    assertThat(bed.dcmi.listVnpus(0))
        .singleElement()
        .satisfies(
            v -> {
              assertThat(v.templateName()).isEqualTo("vir10_3c_16g");
              assertThat(v.vnpuId()).isEqualTo(100);
            });
    byte[] bytes = Files.readAllBytes(bed.cdi.resolve("npu.huawei.com-npu_" + uid1 + ".json"));
    assertThat(CdiSchema.violations(bytes)).isEmpty();
    JsonNode d = json.readTree(bytes).get("devices").get(0);
    assertThat(d.get("name").asString()).isEqualTo(uid1 + "-npu-0-s1");
    assertThat(d.at("/containerEdits/deviceNodes/0/path").asString()).isEqualTo("/dev/davinci100");
    assertThat(d.at("/containerEdits/deviceNodes/0/hostPath").asString())
        .isEqualTo(bed.dev.resolve("vdavinci100").toString());
    assertThat(d.at("/containerEdits/env").toString())
        .isEqualTo("[\"ASCEND_VISIBLE_DEVICES=100\",\"ASCEND_VNPU_TEMPLATE=vir10_3c_16g\"]");
    assertThat(plugin.state().snapshot().preparedClaims().get(uid1).devices().get(0).vnpu())
        .satisfies(
            v -> {
              assertThat(v.vnpuId()).isEqualTo(100);
              assertThat(v.template()).isEqualTo("vir10_3c_16g");
              assertThat(v.memoryMib()).isEqualTo(16384);
            });

    var status =
        client
            .dynamicResourceAllocation()
            .v1()
            .resourceClaims()
            .inNamespace("demo")
            .withName("c1")
            .get()
            .getStatus()
            .getDevices();
    assertThat(status)
        .singleElement()
        .satisfies(
            st -> {
              assertThat(st.getDevice()).isEqualTo("npu-0");
              assertThat(st.getShareID()).isEqualTo("s1");
            });
    // as on the wire (the client's model wraps the raw extension when read back)
    assertThat(
            json.readTree(
                    client.raw("/apis/resource.k8s.io/v1/namespaces/demo/resourceclaims" + "/c1"))
                .at("/status/devices/0/data")
                .toString())
        .isEqualTo(
            "{\"uuid\":\""
                + plugin.inventory().devices().get("npu-0").uuid()
                + "\",\"physicalId\":0,\"vnpuId\":100,\"template\":\"vir10_3c_16g\"}");

    assertThat(prepare("c2", "s2", "10000Mi").getError()).isEmpty();
    assertThat(bed.dcmi.listVnpus(0)).extracting(v -> v.vnpuId()).containsExactly(100, 101);

    // 32 GiB are held: a third share is refused before DCMI is asked, nothing is left behind
    int calls = bed.dcmi.createCalls();
    NodePrepareResourceResponse r3 = prepare("c3", "s3", "6Gi");
    String uid3 = uid;
    assertThat(r3.getError())
        .contains("npu-0")
        .contains("vir05_1c_8g")
        .contains("32768 of 32768 MiB already held");
    assertThat(bed.dcmi.createCalls()).isEqualTo(calls);
    assertThat(bed.dcmi.listVnpus(0)).hasSize(2);
    assertThat(plugin.state().snapshot().preparedClaims()).doesNotContainKey(uid3);
    assertThat(bed.cdi.resolve("npu.huawei.com-npu_" + uid3 + ".json")).doesNotExist();

    // unprepare destroys
    assertThat(
            kubelet
                .unprepareV1(draSocket(), claim("demo", uid1, "c1"))
                .getClaimsOrThrow(uid1)
                .getError())
        .isEmpty();
    assertThat(bed.dcmi.listVnpus(0)).extracting(v -> v.vnpuId()).containsExactly(101);
    assertThat(bed.dev.resolve("vdavinci100")).doesNotExist();
  }

  @Test
  void aRestartBetweenPrepareAndUnprepareNeitherLeaksNorCreatesTwice() throws Exception {
    DraTestBed.await("NPUs discovered", () -> plugin.inventory().devices().size() == 2);
    assertThat(prepare("c1", "s1", "8Gi").getError()).isEmpty();
    String uid = this.uid;
    assertThat(bed.dcmi.listVnpus(0))
        .singleElement()
        .satisfies(v -> assertThat(v.templateName()).isEqualTo("vir05_1c_8g"));

    plugin.close();
    bed.bootId = "boot-1";
    plugin = bed.startedPlugin();
    DraTestBed.await("NPUs rediscovered", () -> plugin.inventory().devices().size() == 2);

    // the kubelet repeats the prepare after the restart: same answer, no second vNPU
    int calls = bed.dcmi.createCalls();
    NodePrepareResourceResponse again =
        kubelet.prepareV1(draSocket(), claim("demo", uid, "c1")).getClaimsOrThrow(uid);
    assertThat(again.getError()).isEmpty();
    assertThat(again.getDevices(0).getCdiDeviceIdsList())
        .containsExactly("npu.huawei.com/npu=" + uid + "-npu-0-s1");
    assertThat(bed.dcmi.createCalls()).isEqualTo(calls);
    assertThat(bed.dcmi.listVnpus(0)).hasSize(1);

    assertThat(
            kubelet
                .unprepareV1(draSocket(), claim("demo", uid, "c1"))
                .getClaimsOrThrow(uid)
                .getError())
        .isEmpty();
    assertThat(bed.dcmi.listVnpus(0)).isEmpty();
    assertThat(plugin.state().snapshot().preparedClaims()).isEmpty();
  }

  @Test
  void aRebuiltClaimHoldingAVnpuIsNotPreparedAgainBeforeDcmiCheckedIt() throws Exception {
    DraTestBed.await("NPUs discovered", () -> plugin.inventory().devices().size() == 2);
    assertThat(prepare("c1", "s1", "10000Mi").getError()).isEmpty();
    String uid = this.uid;
    plugin.close();
    Files.writeString(
        plugin.sockets().dataDir().resolve(io.vnpu.kube.dra.checkpoint.CheckpointStore.FILE_NAME),
        "not a checkpoint");
    bed.dcmi.failNext(3); // DCMI lists no NPUs for about 7 s (backoff 1 + 2 + 4 s)
    plugin = bed.startedPlugin();

    NodePrepareResourceResponse early =
        kubelet.prepareV1(draSocket(), claim("demo", uid, "c1")).getClaimsOrThrow(uid);
    assertThat(early.getError())
        .isEqualTo(
            "ResourceClaim demo/c1: waiting until the hard vNPUs"
                + " recorded before the restart are checked through DCMI (DCMI has not answered yet);"
                + " retried");
    assertThat(plugin.state().snapshot().vnpuCheckPending()).isTrue();

    DraTestBed.await("vNPU records checked", () -> !plugin.state().snapshot().vnpuCheckPending());
    int calls = bed.dcmi.createCalls();
    NodePrepareResourceResponse later =
        kubelet.prepareV1(draSocket(), claim("demo", uid, "c1")).getClaimsOrThrow(uid);
    assertThat(later.getError()).isEmpty();
    assertThat(later.getDevices(0).getCdiDeviceIdsList())
        .containsExactly("npu.huawei.com/npu=" + uid + "-npu-0-s1");
    assertThat(bed.dcmi.createCalls()).isEqualTo(calls);
    assertThat(bed.dcmi.listVnpus(0)).extracting(v -> v.vnpuId()).containsExactly(100);
  }

  @Test
  void aShareOfTheWholeChipCreatesNoVnpuAndTooMuchIsAClaimError() throws Exception {
    DraTestBed.await("NPUs discovered", () -> plugin.inventory().devices().size() == 2);
    NodePrepareResourceResponse r = prepare("w", "s1", "32Gi");
    String whole = uid;
    assertThat(r.getError()).isEmpty();
    assertThat(bed.dcmi.createCalls()).isZero();
    JsonNode d =
        json.readTree(Files.readAllBytes(bed.cdi.resolve("npu.huawei.com-npu_" + whole + ".json")))
            .get("devices")
            .get(0);
    assertThat(d.at("/containerEdits/deviceNodes/0/path").asString()).isEqualTo("/dev/davinci0");

    assertThat(prepare("big", "s2", "40Gi").getError())
        .isEqualTo(
            "ResourceClaim demo/big: status.allocation.devices.results[0].consumedCapacity"
                + ".memCapacity = 40Gi: more than chip 910B4 holds (32768 MiB)");
  }
}
