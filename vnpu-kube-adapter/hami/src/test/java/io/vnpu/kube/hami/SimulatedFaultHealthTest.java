package io.vnpu.kube.hami;

import static io.vnpu.kube.hami.KubeFixtures.NODE;
import static io.vnpu.kube.hami.KubeFixtures.node;
import static io.vnpu.kube.hami.KubeFixtures.nodeAnnotations;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.fault.FaultConfigs;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.health.ChipUsage;
import io.vnpu.api.health.FaultNotifier;
import io.vnpu.api.health.ManualSeparationStore;
import io.vnpu.api.model.VnpuTemplate;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.DcmiLibrarySource;
import io.vnpu.dcmi.fault.DcmiHealth;
import io.vnpu.dcmi.sim.BundledSimulator;
import io.vnpu.kube.hami.codec.RegisterAnnotationCodec;
import io.vnpu.kube.hami.codec.RegisterDevice;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fault injected in the simulated driver reaches the HAMi device plugin (ListAndWatch devices and
 * the register annotation) after one health poll, through the node's one health source, and a
 * recovery makes the chip healthy again there.
 */
@EnableKubernetesMockClient(crud = true)
class SimulatedFaultHealthTest {
  KubernetesClient client;

  @TempDir Path root;

  private final RegisterAnnotationCodec codec = new RegisterAnnotationCodec(true);
  private final Path nativeDir = Path.of(System.getProperty("vnpu.native.dir"));

  private void ctl(String... args) throws Exception {
    List<String> cmd =
        new java.util.ArrayList<>(List.of(nativeDir.resolve("vnpu-sim-ctl").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment()
        .putAll(Map.of("VNPU_SIM_PROFILE", "910B3x8", "VNPU_SIM_ROOT", root.toString()));
    Process p = pb.start();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(text).isZero();
  }

  private List<Boolean> registered() throws Exception {
    return codec.decode(nodeAnnotations(client).get("hami.io/node-register-Ascend910B3")).stream()
        .map(RegisterDevice::health)
        .toList();
  }

  @Test
  void injectedFaultIsPublishedAfterOnePollAndTheRecoveryToo() throws Exception {
    node(client, Map.of());
    BundledSimulator sim = new BundledSimulator(nativeDir);
    sim.configure("910B3x8", root);
    Path lib = sim.library().orElseThrow();
    try (DcmiDeviceManager dm =
        DcmiDeviceManager.open(new DcmiLibrarySource(lib, "test", List.of(lib)))) {
      HealthMonitor health =
          DcmiHealth.create(
                  dm.dcmi(),
                  FaultConfigs.shippedDefault(),
                  ManualSeparationStore.inMemory(),
                  ChipUsage.NONE,
                  FaultNotifier.NONE,
                  Duration.ofSeconds(5),
                  Clock.systemUTC())
              .monitor();
      RecordingScheduler scheduler = new RecordingScheduler();
      HamiComponents c =
          new HamiComponents(
              client,
              dm,
              health,
              chip(),
              HamiNodeSettings.defaults(false),
              HamiOptions.defaults(NODE),
              new MutableClock(Instant.parse("2026-12-01T00:00:00Z")),
              scheduler);
      health.pollOnce();
      c.start();
      AtomicInteger changes = new AtomicInteger();
      AutoCloseable watch = c.resourceManager().watch(changes::incrementAndGet);
      scheduler.tasks.clear(); // the periodic rounds; only health-triggered rounds are run below
      c.registerLoop().runOnce();
      assertThat(registered()).hasSize(8).containsOnly(true);

      ctl("fault", "3", "0x80E3A201");
      health.pollOnce(); // one poll period
      assertThat(scheduler.tasks)
          .extracting(RecordingScheduler.Task::delay)
          .containsExactly(Duration.ZERO);
      scheduler.runNext();
      assertThat(changes).hasValue(1);
      String uuid3 = dm.discover().get(3).uuid();
      assertThat(c.resourceManager().devices())
          .filteredOn(d -> d.id().startsWith(uuid3))
          .isNotEmpty()
          .allSatisfy(d -> assertThat(d.healthy()).isFalse());
      assertThat(c.resourceManager().devices())
          .filteredOn(d -> !d.id().startsWith(uuid3))
          .allSatisfy(d -> assertThat(d.healthy()).isTrue());
      assertThat(registered()).containsExactly(true, true, true, false, true, true, true, true);
      assertThat(c.inventory().current().npus().get(3).health().reason())
          .isEqualTo("80E3A201 SeparateNPU (poll)");

      ctl("clear", "3");
      health.pollOnce();
      scheduler.runNext();
      assertThat(changes).hasValue(2);
      assertThat(c.resourceManager().devices()).allSatisfy(d -> assertThat(d.healthy()).isTrue());
      assertThat(registered()).containsOnly(true);
      watch.close();
      c.close();
    }
  }

  private static HamiChipSettings chip() {
    return new HamiChipSettings(
        "910B3",
        "Ascend910B3",
        "huawei.com/Ascend910B3",
        65536,
        65536,
        20,
        List.of(new VnpuTemplate("vir05_1c_16g", 16384, 5, 1)));
  }
}
