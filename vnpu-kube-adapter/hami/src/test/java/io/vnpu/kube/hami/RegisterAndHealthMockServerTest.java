package io.vnpu.kube.hami;

import static io.vnpu.kube.hami.KubeFixtures.NODE;
import static io.vnpu.kube.hami.KubeFixtures.node;
import static io.vnpu.kube.hami.KubeFixtures.nodeAnnotations;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.model.DeviceHealth;
import io.vnpu.api.model.VnpuTemplate;
import io.vnpu.kube.hami.codec.HamiNames;
import io.vnpu.kube.hami.codec.RegisterAnnotationCodec;
import io.vnpu.kube.hami.codec.RegisterDevice;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.hami.kube.NodeRegistrar;
import io.vnpu.kube.hami.kube.RegisterException;
import io.vnpu.kube.resource.PluginDevice;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Node annotations against the CRUD mock API server: conformance vector 3 (registerHAMi), the 30 s
 * / 5 s loop, and a device that goes unhealthy and recovers (bug 9.3).
 */
@EnableKubernetesMockClient(crud = true)
class RegisterAndHealthMockServerTest {
  KubernetesClient client;

  private final MutableClock clock = new MutableClock(Instant.parse("2026-07-24T10:15:30Z"));
  private final RegisterAnnotationCodec codec = new RegisterAnnotationCodec(true);

  private NodeRegistrar registrar(String cw) {
    return new NodeRegistrar(client, NODE, new HamiNames(cw), codec, clock, Duration.ofSeconds(1));
  }

  // vector 3
  @Test
  void registerHami() throws Exception {
    node(client, Map.of());
    registrar("Ascend910")
        .register(
            List.of(RegisterDevice.ascend("uuid1", 0, 4, 32768, 30, "Ascend910", true)), false);
    Map<String, String> a = nodeAnnotations(client);
    List<RegisterDevice> one = codec.decode(a.get("hami.io/node-register-Ascend910"));
    assertThat(one)
        .containsExactly(
            new RegisterDevice(
                "uuid1", 0, 4, 32768, 30, "Ascend910", 0, "", true, "", OptionalInt.of(0)));
    assertThat(a)
        .containsEntry("hami-vnpu-core", "false")
        .containsEntry("hami.io/node-handshake-Ascend910", "Reported_2026.07.24 10:15:31");

    registrar("Ascend910")
        .register(
            List.of(
                RegisterDevice.ascend("uuid1", 0, 4, 32768, 30, "Ascend910", true),
                RegisterDevice.ascend("uuid2", 1, 4, 32768, 30, "Ascend910", false)),
            false);
    List<RegisterDevice> two =
        codec.decode(nodeAnnotations(client).get("hami.io/node-register-Ascend910"));
    assertThat(two).extracting(RegisterDevice::index).containsExactly(0, 1);
    assertThat(two).extracting(RegisterDevice::health).containsExactly(true, false);

    registrar("Ascend910").register(List.of(), false);
    assertThat(nodeAnnotations(client)).containsEntry("hami.io/node-register-Ascend910", "[]");
  }

  @Test
  void registerHamiCoreNodeAdvertisesPercentCores() throws Exception {
    node(client, Map.of());
    HamiChipSettings p310 =
        new HamiChipSettings(
            "310P3",
            "Ascend310P",
            "huawei.com/Ascend310P",
            21527,
            24576,
            8,
            List.of(new VnpuTemplate("vir01", 3072, 1, 1)));
    FakeDeviceManager dm =
        new FakeDeviceManager(List.of(FakeDeviceManager.npu("U0", 0, 0, "310P3")));
    HamiComponents c =
        new HamiComponents(
            client,
            dm,
            p310,
            HamiNodeSettings.defaults(true),
            HamiOptions.defaults(NODE),
            clock,
            new RecordingScheduler());
    assertThat(c.registerLoop().runOnce()).isEqualTo(Duration.ofSeconds(30));
    assertThat(nodeAnnotations(client))
        .containsEntry("hami-vnpu-core", "true")
        .containsEntry(
            "hami.io/node-register-Ascend310P",
            "[{\"id\":\"U0\",\"count\":7,\"devmem\":21527,\"devcore\":100,\"type\":\"Ascend310P\",\"health\":true,\"devicepairscore\":{}}]");
  }

  @Test
  void missingNodeIsAnErrorNamingGetNode() {
    assertThatThrownBy(() -> registrar("Ascend910").register(List.of(), false))
        .isInstanceOf(RegisterException.class)
        .hasMessageContaining("get node");
  }

  @Test
  void loopRunsEvery30sAnd5sAfterError() {
    FakeDeviceManager dm = new FakeDeviceManager(List.of(FakeDeviceManager.npu("U0", 0, 0)));
    RecordingScheduler scheduler = new RecordingScheduler();
    HamiComponents c =
        new HamiComponents(
            client,
            dm,
            chip(),
            HamiNodeSettings.defaults(false),
            HamiOptions.defaults(NODE),
            clock,
            scheduler);
    c.registerLoop().start(Duration.ofSeconds(1));
    assertThat(scheduler.tasks)
        .extracting(RecordingScheduler.Task::delay)
        .containsExactly(Duration.ofSeconds(1));
    scheduler.runNext(); // node missing → error
    assertThat(scheduler.tasks)
        .extracting(RecordingScheduler.Task::delay)
        .containsExactly(Duration.ofSeconds(5));
    node(client, Map.of());
    scheduler.runNext();
    assertThat(scheduler.tasks)
        .extracting(RecordingScheduler.Task::delay)
        .containsExactly(Duration.ofSeconds(30));
    assertThat(nodeAnnotations(client)).containsKey("hami.io/node-register-Ascend910B3");
    dm.failDiscover(true); // DCMI error: last list republished, retry in 5 s
    scheduler.runNext();
    assertThat(scheduler.tasks)
        .extracting(RecordingScheduler.Task::delay)
        .containsExactly(Duration.ofSeconds(5));
    assertThat(nodeAnnotations(client).get("hami.io/node-register-Ascend910B3"))
        .contains("\"id\":\"U0\"");
    c.close();
    scheduler.runNext();
    assertThat(scheduler.tasks).isEmpty();
  }

  // an unexpected exception of a round (the NUMA parser's IndexOutOfBounds on CPU list
  // 0-2147483647) used to end the loop for good; the node then dropped out of HAMi
  @Test
  void loopSurvivesAnUnexpectedExceptionAndKeepsTheNodeRegistered() {
    node(client, Map.of());
    FakeDeviceManager dm = new FakeDeviceManager(List.of(FakeDeviceManager.npu("U0", 0, 0)));
    RecordingScheduler scheduler = new RecordingScheduler();
    HamiComponents c =
        new HamiComponents(
            client,
            dm,
            chip(),
            HamiNodeSettings.defaults(false),
            HamiOptions.defaults(NODE),
            clock,
            scheduler);
    c.registerLoop().start(Duration.ofSeconds(1));
    scheduler.runNext();
    assertThat(scheduler.tasks)
        .extracting(RecordingScheduler.Task::delay)
        .containsExactly(Duration.ofSeconds(30));
    dm.throwOnDiscover(new IndexOutOfBoundsException("bitIndex < 0: -2147483648"));
    clock.advance(Duration.ofSeconds(30));
    scheduler.runNext();
    assertThat(scheduler.tasks)
        .extracting(RecordingScheduler.Task::delay)
        .containsExactly(Duration.ofSeconds(5));
    assertThat(nodeAnnotations(client))
        .containsEntry("hami.io/node-handshake-Ascend910B3", "Reported_2026.07.24 10:16:01");
    assertThat(nodeAnnotations(client).get("hami.io/node-register-Ascend910B3"))
        .contains("\"id\":\"U0\"");
    dm.throwOnDiscover(null);
    scheduler.runNext();
    assertThat(scheduler.tasks)
        .extracting(RecordingScheduler.Task::delay)
        .containsExactly(Duration.ofSeconds(30));
  }

  // bug 9.3: recovery is republished to the scheduler and to ListAndWatch
  @Test
  void unhealthyDeviceIsRepublishedAndRecovers() throws Exception {
    node(client, Map.of());
    FakeDeviceManager dm =
        new FakeDeviceManager(
            List.of(FakeDeviceManager.npu("U0", 0, 0), FakeDeviceManager.npu("U1", 1, 1)));
    HamiComponents c =
        new HamiComponents(
            client,
            dm,
            chip(),
            HamiNodeSettings.defaults(false),
            HamiOptions.defaults(NODE),
            clock,
            new RecordingScheduler());
    AtomicInteger changes = new AtomicInteger();
    AutoCloseable handle = c.resourceManager().watch(changes::incrementAndGet);
    c.registerLoop().runOnce();
    assertThat(changes).hasValue(1);
    assertThat(health(c)).containsExactly(true, true);

    dm.setHealth(1, DeviceHealth.fault(0x80E01801L, "fault code 0x80E01801"));
    c.registerLoop().runOnce();
    assertThat(changes).hasValue(2);
    assertThat(c.resourceManager().devices())
        .filteredOn(d -> d.id().startsWith("U1-"))
        .hasSize(4)
        .allSatisfy(d -> assertThat(d.healthy()).isFalse());
    assertThat(codec.decode(nodeAnnotations(client).get("hami.io/node-register-Ascend910B3")))
        .extracting(RegisterDevice::health)
        .containsExactly(true, false);

    c.registerLoop().runOnce(); // no change, no resend
    assertThat(changes).hasValue(2);

    dm.setHealth(1, DeviceHealth.HEALTHY);
    c.registerLoop().runOnce();
    assertThat(changes).hasValue(3);
    assertThat(health(c)).containsExactly(true, true);
    assertThat(c.resourceManager().devices())
        .hasSize(8)
        .allSatisfy(d -> assertThat(d.healthy()).isTrue());
    handle.close();
    dm.setHealth(0, DeviceHealth.unhealthy("card dropped (-8012)"));
    c.registerLoop().runOnce();
    assertThat(changes).hasValue(3);
  }

  @Test
  void filteredDevicesAreNeitherRegisteredNorAdvertised() throws Exception {
    node(client, Map.of());
    FakeDeviceManager dm =
        new FakeDeviceManager(
            List.of(
                FakeDeviceManager.npu("U0", 0, 0),
                FakeDeviceManager.npu("U1", 1, 1),
                FakeDeviceManager.npu("U2", 2, 2)));
    HamiComponents c =
        new HamiComponents(
            client,
            dm,
            chip(),
            new HamiNodeSettings(false, 2, Set.of("U0"), Set.of(2)),
            HamiOptions.defaults(NODE),
            clock,
            new RecordingScheduler());
    c.registerLoop().runOnce();
    assertThat(c.resourceManager().devices())
        .extracting(PluginDevice::id)
        .containsExactly("U1-0", "U1-1");
    assertThat(nodeAnnotations(client).get("hami.io/node-register-Ascend910B3"))
        .isEqualTo(
            "[{\"id\":\"U1\",\"count\":2,\"devmem\":65536,\"devcore\":20,\"type\":\"Ascend910B3\",\"health\":true,"
                + "\"custominfo\":{\"NetworkID\":0},\"devicepairscore\":{}}]");
  }

  /**
   * A node with NPUs of two models (a 910B3 and a 310P3 card): HAMi's plugin serves one model, the
   * one its config entry was chosen for (the first NPU's). The other model's NPU was registered and
   * advertised as a 910B3 with 910B3's memory, AI cores and templates, so HAMi placed 910B3 pods on
   * the 310P3 chip.
   */
  @Test
  void anNpuOfAnotherModelIsNeitherRegisteredNorAdvertised() throws Exception {
    node(client, Map.of());
    FakeDeviceManager dm =
        new FakeDeviceManager(
            List.of(
                FakeDeviceManager.npu("U0", 0, 0),
                new io.vnpu.api.model.Npu(
                    "P1", 1, 1, 1, 0, "310P3", 24L << 30, 8, 7, DeviceHealth.HEALTHY, -1)));
    HamiComponents c =
        new HamiComponents(
            client,
            dm,
            chip(),
            new HamiNodeSettings(false, 2, Set.of(), Set.of()),
            HamiOptions.defaults(NODE),
            clock,
            new RecordingScheduler());
    c.registerLoop().runOnce();
    assertThat(c.resourceManager().devices())
        .extracting(PluginDevice::id)
        .containsExactly("U0-0", "U0-1");
    assertThat(codec.decode(nodeAnnotations(client).get("hami.io/node-register-Ascend910B3")))
        .extracting(RegisterDevice::id)
        .containsExactly("U0");
  }

  private List<Boolean> health(HamiComponents c) throws Exception {
    return codec.decode(nodeAnnotations(client).get("hami.io/node-register-Ascend910B3")).stream()
        .map(RegisterDevice::health)
        .toList();
  }

  private static HamiChipSettings chip() {
    return new HamiChipSettings(
        "910B3",
        "Ascend910B3",
        "huawei.com/Ascend910B3",
        65536,
        65536,
        20,
        List.of(
            new VnpuTemplate("vir05_1c_16g", 16384, 5, 1),
            new VnpuTemplate("vir10_3c_32g", 32768, 10, 3)));
  }
}
