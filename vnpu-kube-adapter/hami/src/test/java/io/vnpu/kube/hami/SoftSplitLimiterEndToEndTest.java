package io.vnpu.kube.hami;

import static io.vnpu.kube.hami.KubeFixtures.NODE;
import static io.vnpu.kube.hami.KubeFixtures.node;
import static io.vnpu.kube.hami.KubeFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.slice.Mount;
import io.vnpu.kube.hami.alloc.SoftSplitLayout;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.limiter.LimiterFixture;
import io.vnpu.kube.limiter.SimContainer;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.resource.QuotaRegionFactory;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Soft split end to end: Allocate of a hami-core pod creates the container's quota region, and
 * npu-burn on the simulated CANN runtime with the limiter ({@code libvnpu.so}) preloaded and the
 * Allocate environment obeys each device's own limit.
 */
@EnableKubernetesMockClient(crud = true)
class SoftSplitLimiterEndToEndTest {
  private static final long MIB = 1L << 20;

  KubernetesClient client;

  @TempDir Path tmp;

  @Test
  void workloadUnderTheLimiterObeysTheRegionAllocateCreated() throws Exception {
    node(client, Map.of("hami.io/mutex.lock", "2024-01-01T00:00:00Z,default,burn"));
    pod(
        client,
        "burn",
        1L,
        Map.of(
            "huawei.com/vnpu-mode",
            "hami-core",
            "hami.io/Ascend910B3-devices-to-allocate",
            "U0,Ascend910B3,1024,50:U1,Ascend910B3,512,50:;",
            "huawei.com/Ascend910B3",
            "[{\"UUID\":\"U0\",\"memory\":1024,\"core\":50},{\"UUID\":\"U1\",\"memory\":512,\"core\":50}]"),
        List.of(),
        List.of("main"));
    QuotaRegions regions = new QuotaRegions();
    HamiOptions opts =
        HamiOptions.defaults(NODE)
            .withSoftSplit(
                SoftSplitLayout.upstream(tmp.resolve("hook"))
                    .withLimiterDir(
                        LimiterFixture.installInto(tmp.resolve("limiter")).hostDir().toString()),
                Optional.of(QuotaRegionFactory.writing(regions)));
    HamiChipSettings chip =
        new HamiChipSettings(
            "910B3", "Ascend910B3", "huawei.com/Ascend910B3", 65536, 65536, 20, List.of());
    HamiComponents c =
        new HamiComponents(
            client,
            new FakeDeviceManager(
                List.of(FakeDeviceManager.npu("U0", 0, 0), FakeDeviceManager.npu("U1", 1, 1))),
            chip,
            HamiNodeSettings.defaults(true),
            opts,
            new MutableClock(Instant.EPOCH),
            new RecordingScheduler());
    c.inventory().refresh();

    ContainerAllocation a = c.resourceManager().allocate(List.of("U0-0", "U1-0"));
    Path hostDir =
        Path.of(
            a.mounts().stream()
                .filter(m -> m.containerPath().equals("/hami-vnpu-shmem"))
                .map(Mount::hostPath)
                .findFirst()
                .orElseThrow());
    Path region = hostDir.resolve("vnpu_local_shmem");
    assertThat(region).exists();
    assertThat(a.envs())
        .containsEntry("NPU_MEM_QUOTA", "1024")
        .containsEntry("ASCEND_VISIBLE_DEVICES", "0,1");

    // device 1 has its own, smaller limit although NPU_MEM_QUOTA names the first device's
    assertThat(burn(a.envs(), region, "--device", "1", "alloc", "512M", "alloc", "1"))
        .containsExactly("alloc ok size=" + 512 * MIB, "alloc fail code=207001 size=1");
    assertThat(burn(a.envs(), region, "--device", "0", "alloc", "1G", "alloc", "1"))
        .containsExactly("alloc ok size=" + 1024 * MIB, "alloc fail code=207001 size=1");
    try (QuotaRegion r = regions.open(region)) {
      assertThat(r.usage().devices().get(0).oomRejections()).isEqualTo(1);
      assertThat(r.usage().devices().get(1).oomRejections()).isEqualTo(1);
    }
  }

  // issue 16: the HAMi core request is a cap on the NPU's AI-core time, held through the agent's
  // compute registry; the entry survives an agent restart and goes with the pod
  @Test
  void coreRequestOf25IsHeldAndTheRegistrationFollowsThePod() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        SimContainer.available(), SimContainer.UNAVAILABLE);
    node(client, Map.of("hami.io/mutex.lock", "2024-01-01T00:00:00Z,default,burn25"));
    pod(
        client,
        "burn25",
        1L,
        Map.of(
            "huawei.com/vnpu-mode",
            "hami-core",
            "hami.io/Ascend910B3-devices-to-allocate",
            "U0,Ascend910B3,1024,25:;",
            "huawei.com/Ascend910B3",
            "[{\"UUID\":\"U0\",\"memory\":1024,\"core\":25}]"),
        List.of(),
        List.of("main"));
    // the node's driver files, so that every mount of the response exists as a runtime requires
    Path host = Files.createDirectories(tmp.resolve("host"));
    for (String f : List.of("npu-smi", "ascend_install.info", "version.info"))
      Files.writeString(host.resolve(f), "");
    Files.createDirectories(host.resolve("driver"));
    SoftSplitLayout layout =
        new SoftSplitLayout(
            host.resolve("npu-smi").toString(),
            host.resolve("ascend_install.info").toString(),
            host.resolve("driver").toString(),
            host.resolve("version.info").toString(),
            LimiterFixture.installInto(tmp.resolve("limiter")).hostDir().toString(),
            host.resolve("shared").toString(),
            tmp.resolve("hook"));
    QuotaRegions regions = new QuotaRegions();
    HamiOptions opts =
        HamiOptions.defaults(NODE)
            .withSoftSplit(layout, Optional.of(QuotaRegionFactory.writing(regions)));
    HamiChipSettings chip =
        new HamiChipSettings(
            "910B3", "Ascend910B3", "huawei.com/Ascend910B3", 65536, 65536, 20, List.of());
    FakeDeviceManager dm = new FakeDeviceManager(List.of(FakeDeviceManager.npu("U0", 0, 0)));
    java.util.function.Supplier<HamiComponents> agent =
        () ->
            new HamiComponents(
                client,
                dm,
                chip,
                HamiNodeSettings.defaults(true),
                opts,
                new MutableClock(Instant.EPOCH),
                new RecordingScheduler());
    HamiComponents c = agent.get();
    c.inventory().refresh();

    ContainerAllocation a = c.resourceManager().allocate(List.of("U0-0"));
    assertThat(a.mounts())
        .contains(new Mount("/hami-shared-region", tmp.resolve("hook/registry").toString(), true));
    Path dir = tmp.resolve("hook/containers/" + KubeFixtures.uid(client, "burn25") + "_main");
    Path region = dir.resolve("vnpu_local_shmem");
    long key;
    try (QuotaRegion r = regions.open(region)) {
      key = r.epoch();
    }
    assertThat(registry(0))
        .extracting(e -> e.key() + " " + e.weight() + " " + e.capPct() + " " + e.name())
        .containsExactly(key + " 25 25 default/burn25/main");

    SimContainer.Result res =
        new SimContainer(tmp, tmp.resolve("sim"))
            .run(
                a.envs(),
                a.mounts(),
                List.of(
                    SimContainer.nativeDir().resolve("npu-burn").toString(),
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
    try (QuotaRegion r = regions.open(region)) {
      double share = (double) r.computeCounters(0).busyNs() / wall;
      assertThat(share).as("AI-core share").isBetween(0.20, 0.30);
      assertThat(r.computeCounters(0).launches()).isEqualTo(300);
    }
    assertThat(registry(0).get(0).sharePpm()).isEqualTo(250_000);

    // agent restart: the entry is kept as it is
    c.close();
    HamiComponents again = agent.get();
    try {
      again.inventory().refresh();
      assertThat(again.podSweep().runOnce().removedDirs()).isEmpty();
      assertThat(registry(0))
          .extracting(e -> e.key() + " " + e.capPct())
          .containsExactly(key + " 25");

      client.pods().inNamespace("default").withName("burn25").delete();
      assertThat(again.podSweep().runOnce().removedDirs()).containsExactly(dir);
      assertThat(registry(0)).isEmpty();
      try (var files = Files.list(tmp.resolve("hook/registry"))) {
        assertThat(files.map(p -> p.getFileName().toString()))
            .containsExactly("npu0.reg"); // nothing of any container
      }
    } finally {
      again.close();
    }
  }

  private List<io.vnpu.quota.registry.RegistryEntry> registry(int phyId) throws Exception {
    try (io.vnpu.quota.registry.ComputeRegistry r =
        new io.vnpu.quota.registry.ComputeRegistries()
            .open(tmp.resolve("hook/registry/npu" + phyId + ".reg"))) {
      return r.entries();
    }
  }

  /** Runs npu-burn as the container would, with the region at its host path; returns its steps. */
  private List<String> burn(Map<String, String> envs, Path region, String... args)
      throws Exception {
    Path nativeDir =
        Path.of(System.getProperty("vnpu.native.dir", System.getenv("VNPU_NATIVE_DIR")));
    List<String> cmd =
        new ArrayList<>(List.of(nativeDir.resolve("npu-burn").toString(), "--alloc-via", "rt"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    Map<String, String> e = pb.environment();
    e.keySet()
        .removeIf(k -> k.startsWith("NPU_") || k.startsWith("VNPU_") || k.equals("LD_PRELOAD"));
    e.putAll(envs);
    e.put("NPU_LOCAL_SHM_PATH", region.toString());
    e.put("LD_PRELOAD", nativeDir.resolve("libvnpu.so").toString());
    e.put("VNPU_SIM_ROOT", tmp.resolve("sim").toString());
    e.put("VNPU_SIM_QUIET", "1");
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("npu-burn stderr: %s", err).isZero();
    return new String(out, StandardCharsets.UTF_8)
        .lines()
        .map(l -> l.replaceAll(" (ptr|pid|thread)=\\S+", ""))
        .toList();
  }
}
