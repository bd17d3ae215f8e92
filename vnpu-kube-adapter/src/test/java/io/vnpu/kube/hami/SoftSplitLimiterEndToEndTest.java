package io.vnpu.kube.hami;

import static io.vnpu.kube.hami.KubeFixtures.NODE;
import static io.vnpu.kube.hami.KubeFixtures.node;
import static io.vnpu.kube.hami.KubeFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.kube.hami.alloc.SoftSplitLayout;
import io.vnpu.kube.limiter.LimiterFixture;
import io.vnpu.kube.resource.VnpuQuotaRegionFactory;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.api.slice.Mount;
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

  @TempDir
  Path tmp;

  @Test
  void workloadUnderTheLimiterObeysTheRegionAllocateCreated() throws Exception {
    node(client, Map.of("hami.io/mutex.lock", "2024-01-01T00:00:00Z,default,burn"));
    pod(client, "burn", 1L, Map.of("huawei.com/vnpu-mode", "hami-core",
        "hami.io/Ascend910B3-devices-to-allocate", "U0,Ascend910B3,1024,50:U1,Ascend910B3,512,50:;",
        "huawei.com/Ascend910B3", "[{\"UUID\":\"U0\",\"memory\":1024,\"core\":50},{\"UUID\":\"U1\",\"memory\":512,\"core\":50}]"),
        List.of(), List.of("main"));
    QuotaRegions regions = new QuotaRegions();
    HamiOptions opts = HamiOptions.defaults(NODE).withSoftSplit(SoftSplitLayout.upstream(tmp.resolve("hook"))
            .withLimiterDir(LimiterFixture.installInto(tmp.resolve("limiter")).hostDir().toString()),
        Optional.of(new VnpuQuotaRegionFactory(regions)));
    HamiChipSettings chip = new HamiChipSettings("910B3", "Ascend910B3", "huawei.com/Ascend910B3", 65536, 65536, 20, List.of());
    HamiComponents c = new HamiComponents(client, new FakeDeviceManager(List.of(FakeDeviceManager.npu("U0", 0, 0),
        FakeDeviceManager.npu("U1", 1, 1))), chip, HamiNodeSettings.defaults(true), opts,
        new MutableClock(Instant.EPOCH), new RecordingScheduler());
    c.inventory().refresh();

    ContainerAllocation a = c.resourceManager().allocate(List.of("U0-0", "U1-0"));
    Path hostDir = Path.of(a.mounts().stream().filter(m -> m.containerPath().equals("/hami-vnpu-shmem"))
        .map(Mount::hostPath).findFirst().orElseThrow());
    Path region = hostDir.resolve("vnpu_local_shmem");
    assertThat(region).exists();
    assertThat(a.envs()).containsEntry("NPU_MEM_QUOTA", "1024").containsEntry("ASCEND_VISIBLE_DEVICES", "0,1");

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

  /** Runs npu-burn as the container would, with the region at its host path; returns its steps. */
  private List<String> burn(Map<String, String> envs, Path region, String... args) throws Exception {
    Path nativeDir = Path.of(System.getProperty("vnpu.native.dir", System.getenv("VNPU_NATIVE_DIR")));
    List<String> cmd = new ArrayList<>(List.of(nativeDir.resolve("npu-burn").toString(), "--alloc-via", "rt"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    Map<String, String> e = pb.environment();
    e.keySet().removeIf(k -> k.startsWith("NPU_") || k.startsWith("VNPU_") || k.equals("LD_PRELOAD"));
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
    return new String(out, StandardCharsets.UTF_8).lines()
        .map(l -> l.replaceAll(" (ptr|pid|thread)=\\S+", "")).toList();
  }
}
