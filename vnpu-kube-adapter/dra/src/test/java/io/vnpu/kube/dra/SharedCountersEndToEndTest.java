package io.vnpu.kube.dra;

import static io.vnpu.kube.dra.DraTestBed.DRIVER;
import static io.vnpu.kube.dra.DraTestBed.NODE;
import static io.vnpu.kube.testing.DraClaims.allocated;
import static io.vnpu.kube.testing.DraKubeletStandIn.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vnpu.api.config.DeviceConfigLoader;
import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.Npu;
import io.vnpu.kube.dra.modes.ChipModePins;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourceResponse;
import io.vnpu.kube.dra.slices.DroppedField;
import io.vnpu.kube.dra.slices.FieldDroppingApiServer;
import io.vnpu.kube.limiter.LimiterFixture;
import io.vnpu.kube.testing.DraKubeletStandIn;
import io.vnpu.kube.testing.MutableDeviceManager;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hard and soft on one chip ({@code --enable-hard-vnpu --enable-soft-slicing}): a 910B4 (32 GiB, 20
 * AI Cores, hard-splittable) offered as {@code npu-0} (hard) and {@code npu-0-soft} behind the
 * counter set {@code npu-0-counters}, a 310P3 offered soft only; the fallback to one mode per chip
 * when the API server drops the counters, {@code --shared-counters=off} and {@code --chip-modes}.
 */
class SharedCountersEndToEndTest {

  @TempDir Path tmp;

  FieldDroppingApiServer api;
  DraTestBed bed;
  DraKubeletStandIn kubelet;
  DraPlugin plugin;

  void start(DroppedField... dropped) throws Exception {
    start(ChipModePins.NONE, true, dropped);
  }

  void start(ChipModePins pins, boolean counters, DroppedField... dropped) throws Exception {
    api = new FieldDroppingApiServer(NODE).dropping(dropped);
    KubernetesClient client = api.client();
    bed = new DraTestBed(tmp, client);
    bed.chipModes = pins;
    bed.sharedCounters = counters;
    bed.hardVnpu = true;
    bed.softSlicing = true;
    bed.limiter = LimiterFixture.installInto(tmp.resolve("limiter"));
    bed.deviceConfig =
        new DeviceConfigLoader()
            .parse(HardVnpuEndToEndTest.DEVICE_CONFIG, "device-config.yaml")
            .value();
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
    if (kubelet != null) {
      kubelet.close();
    }
    if (api != null) {
      api.close();
    }
  }

  static boolean counterSlice(ResourceSlice s) {
    return s.getSpec().getSharedCounters() != null && !s.getSpec().getSharedCounters().isEmpty();
  }

  Optional<ResourceSlice> deviceSlice() {
    return bed.slices().stream().filter(s -> !counterSlice(s)).findFirst();
  }

  List<String> deviceNames() {
    return deviceSlice()
        .map(s -> s.getSpec().getDevices().stream().map(Device::getName).toList())
        .orElse(List.of());
  }

  static String sharing(Device d) {
    return d.getAttributes().get("sharing").getString();
  }

  @Test
  void aChipThatCanBeHardAndSoftIsOfferedBothWaysBehindOneCounterSet() throws Exception {
    start();
    DraTestBed.await(
        "a counter slice and a device slice",
        () -> bed.slices().size() == 2 && deviceNames().size() == 3);
    List<ResourceSlice> slices = bed.slices();
    assertThat(slices)
        .allSatisfy(
            s -> {
              assertThat(s.getSpec().getPool().getName()).isEqualTo(NODE);
              assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(2L);
            });
    CounterSet set =
        slices.stream()
            .filter(SharedCountersEndToEndTest::counterSlice)
            .findFirst()
            .orElseThrow()
            .getSpec()
            .getSharedCounters()
            .get(0);
    assertThat(set.getName()).isEqualTo("npu-0-counters");
    assertThat(set.getCounters().get("memory").getValue()).isEqualTo(new Quantity("32Gi"));
    assertThat(set.getCounters().get("aicore").getValue()).isEqualTo(new Quantity("20"));

    List<Device> devices = deviceSlice().orElseThrow().getSpec().getDevices();
    assertThat(devices).extracting(Device::getName).containsExactly("npu-0", "npu-0-soft", "npu-1");
    Device hard = devices.get(0);
    assertThat(sharing(hard)).isEqualTo("hard");
    assertThat(hard.getAllowMultipleAllocations()).isTrue();
    assertThat(hard.getCapacity().get("memCapacity").getRequestPolicy().getValidValues())
        .containsExactly(new Quantity("8Gi"), new Quantity("16Gi"), new Quantity("32Gi"));
    Device soft = devices.get(1);
    assertThat(sharing(soft)).isEqualTo("soft");
    assertThat(soft.getAllowMultipleAllocations()).isTrue();
    assertThat(soft.getCapacity()).containsOnlyKeys("memory", "cores");
    for (Device d : List.of(hard, soft)) {
      assertThat(d.getConsumesCounters())
          .singleElement()
          .satisfies(
              c -> {
                assertThat(c.getCounterSet()).isEqualTo("npu-0-counters");
                assertThat(c.getCounters().get("memory").getValue())
                    .isEqualTo(new Quantity("32Gi"));
                assertThat(c.getCounters().get("aicore").getValue()).isEqualTo(new Quantity("20"));
              });
    }
    // the 310P cannot be hard-split: soft only, nothing to exclude, no counters
    assertThat(sharing(devices.get(2))).isEqualTo("soft");
    assertThat(devices.get(2).getConsumesCounters()).isNullOrEmpty();
    assertThat(plugin.sharedCounters()).isTrue();
  }

  @Test
  void theHealthStreamListsEveryPublishedDeviceIncludingTheSoftOne() throws Exception {
    start();
    DraTestBed.await("NPUs discovered", () -> plugin.inventory().devices().size() == 2);
    java.util.concurrent.BlockingQueue<io.vnpu.kube.dra.proto.health.v1.NodeWatchResourcesResponse>
        v1 = new java.util.concurrent.LinkedBlockingQueue<>();
    try (io.vnpu.kube.kubelet.UnixSocketTransport transport =
        new io.vnpu.kube.kubelet.UnixSocketTransport(1)) {
      io.grpc.ManagedChannel ch = transport.channel(plugin.sockets().draSocket());
      try {
        io.vnpu.kube.dra.proto.health.v1.DRAResourceHealthGrpc.newStub(ch)
            .nodeWatchResources(
                io.vnpu.kube.dra.proto.health.v1.NodeWatchResourcesRequest.getDefaultInstance(),
                DraHealthTaintTest.collect(v1));
        var m = DraHealthTaintTest.awaitMessage(v1, x -> x.getDevicesCount() == 3);
        assertThat(m.getDevicesList())
            .extracting(d -> d.getDevice().getDeviceName())
            .containsExactly("npu-0", "npu-0-soft", "npu-1");
      } finally {
        ch.shutdownNow();
      }
    }
  }

  static DeviceRequestAllocationResult result(
      String device, String shareId, Map<String, String> consumed) {
    Map<String, Quantity> q = new LinkedHashMap<>();
    consumed.forEach((k, v) -> q.put(k, new Quantity(v)));
    return new DeviceRequestAllocationResultBuilder()
        .withRequest("npu")
        .withDriver(DRIVER)
        .withPool(NODE)
        .withDevice(device)
        .withShareID(shareId)
        .withConsumedCapacity(q)
        .build();
  }

  NodePrepareResourceResponse prepare(String name, DeviceRequestAllocationResult r) {
    ResourceClaim c = bed.create(allocated("demo", name, "unused-" + name, List.of(r)));
    String uid = c.getMetadata().getUid();
    Path socket =
        Path.of(kubelet.getInfo(bed.registrar.resolve(DRIVER + "-reg.sock")).getEndpoint());
    return kubelet.prepareV1(socket, claim("demo", uid, name)).getClaimsOrThrow(uid);
  }

  @Test
  void theNodeRefusesASoftShareOnAChipHeldByAHardVnpuAndTheReverse() throws Exception {
    start();
    DraTestBed.await("NPUs discovered", () -> plugin.inventory().devices().size() == 2);
    NodePrepareResourceResponse hard =
        prepare(
            "hard",
            result(
                "npu-0", "11111111-1111-1111-1111-111111111111", Map.of("memCapacity", "10000Mi")));
    assertThat(hard.getError()).isEmpty();
    assertThat(hard.getDevicesList())
        .singleElement()
        .satisfies(d -> assertThat(d.getDeviceName()).isEqualTo("npu-0"));
    // what a scheduler without kubernetes#139040 could allocate next: the node says no
    NodePrepareResourceResponse soft =
        prepare(
            "soft",
            result(
                "npu-0-soft",
                "22222222-2222-2222-2222-222222222222",
                Map.of("memory", "4Gi", "cores", "25")));
    assertThat(soft.getError())
        .isEqualTo(
            "ResourceClaim demo/soft: device npu-0-soft: its chip"
                + " (phy ID 0) is held through device npu-0 by ResourceClaim demo/hard (uid "
                + plugin.state().snapshot().preparedClaims().values().stream()
                    .filter(c -> c.name().equals("hard"))
                    .findFirst()
                    .orElseThrow()
                    .uid()
                + "); one sharing mode per chip at a time");
    // the soft device of another chip is a plain soft share of it
    NodePrepareResourceResponse other =
        prepare(
            "other",
            result(
                "npu-1",
                "33333333-3333-3333-3333-333333333333",
                Map.of("memory", "4Gi", "cores", "25")));
    assertThat(other.getError()).isEmpty();
  }

  @Test
  void aServerThatDropsTheCountersGetsOneModePerChip() throws Exception {
    start(DroppedField.SHARED_COUNTERS, DroppedField.CONSUMES_COUNTERS);
    DraTestBed.await(
        "the one-mode-per-chip pool",
        () -> !plugin.sharedCounters() && bed.slices().size() == 1 && deviceNames().size() == 2);
    ResourceSlice s = bed.slices().get(0);
    assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(1L);
    assertThat(s.getSpec().getSharedCounters()).isNullOrEmpty();
    assertThat(s.getSpec().getDevices())
        .extracting(Device::getName)
        .containsExactly("npu-0", "npu-1");
    assertThat(s.getSpec().getDevices())
        .extracting(SharedCountersEndToEndTest::sharing)
        .containsExactly("hard", "soft");
    assertThat(s.getSpec().getDevices())
        .allSatisfy(d -> assertThat(d.getConsumesCounters()).isNullOrEmpty());
  }

  @Test
  void sharedCountersOffAndPinnedChipsGiveOneModePerChipFromTheStart() throws Exception {
    start(ChipModePins.parse("0=soft", true, true), false);
    DraTestBed.await(
        "one slice of 2 devices", () -> bed.slices().size() == 1 && deviceNames().size() == 2);
    ResourceSlice s = bed.slices().get(0);
    assertThat(s.getSpec().getDevices())
        .extracting(Device::getName)
        .containsExactly("npu-0", "npu-1");
    assertThat(s.getSpec().getDevices())
        .extracting(SharedCountersEndToEndTest::sharing)
        .containsExactly("soft", "soft");
    assertThat(s.getSpec().getDevices().get(0).getCapacity()).containsOnlyKeys("memory", "cores");
  }
}
