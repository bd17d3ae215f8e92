package io.vnpu.kube.hami;

import static io.vnpu.kube.hami.KubeFixtures.NODE;
import static io.vnpu.kube.hami.KubeFixtures.node;
import static io.vnpu.kube.hami.KubeFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.slice.DeviceNode;
import io.vnpu.kube.hami.alloc.SoftSplitLayout;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.limiter.LimiterFixture;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.resource.QuotaRegionFactory;
import io.vnpu.kube.testing.podman.ChipSplit;
import io.vnpu.kube.testing.podman.Podman;
import io.vnpu.kube.testing.podman.WorkloadImage;
import io.vnpu.quota.region.QuotaRegions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HAMi soft Allocate answers run by a real runtime, podman: two hami-core pods on one chip (1 GiB
 * at 25 %, 2 GiB at 75 %), each answer turned into {@code podman run} arguments as the kubelet
 * passes it to the runtime ({@code -e}, {@code -v}) plus the device nodes the Ascend Docker Runtime
 * adds for {@code ASCEND_VISIBLE_DEVICES} (HAMi's Ascend plugin answers without DeviceSpecs and
 * relies on that runtime): memory info is each quota, one byte past it is 207001, and the two
 * containers running at once split the chip 25/75 within 5 points.
 */
@EnableKubernetesMockClient(crud = true)
class HamiPodmanIT {
  private static final long MIB = 1L << 20;

  KubernetesClient client;

  @TempDir Path tmp;

  @Test
  void softAllocateAnswersRunUnderTheRuntimeWithTheirQuotaAndShare() throws Exception {
    Podman.assumeAvailable("HamiPodmanIT");
    Path nativeDir = Path.of(System.getProperty("vnpu.native.dir"));
    Podman podman = new Podman(tmp.resolve("podman"));
    WorkloadImage.build(podman, tmp, nativeDir);
    Path sim = Files.createDirectories(tmp.resolve("sim"));
    createDeviceNodes(nativeDir, sim);

    // the node's driver files (HAMi's layout mounts them), stand-ins here
    Path host = Files.createDirectories(tmp.resolve("host"));
    for (String f : List.of("npu-smi", "ascend_install.info", "version.info")) {
      Files.writeString(host.resolve(f), "");
    }
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
    HamiOptions opts =
        HamiOptions.defaults(NODE)
            .withSoftSplit(layout, Optional.of(QuotaRegionFactory.writing(new QuotaRegions())));
    HamiChipSettings chip =
        new HamiChipSettings(
            "910B3", "Ascend910B3", "huawei.com/Ascend910B3", 65536, 65536, 20, List.of());
    FakeDeviceManager dm = new FakeDeviceManager(List.of(FakeDeviceManager.npu("U2", 2, 2)));
    HamiComponents c =
        new HamiComponents(
            client,
            dm,
            chip,
            HamiNodeSettings.defaults(true),
            opts,
            new MutableClock(Instant.EPOCH),
            new RecordingScheduler());
    try {
      c.inventory().refresh();
      ContainerAllocation a = allocate(c, "burn-a", 1L, 1024, 25, "U2-0");
      ContainerAllocation b = allocate(c, "burn-b", 2L, 2048, 75, "U2-1");
      assertThat(a.devices()).as("HAMi answers without DeviceSpecs").isEmpty();

      for (ContainerAllocation x : List.of(a, b)) {
        long quota = (x == a ? 1024 : 2048) * MIB;
        Podman.Result r =
            podman.run(
                null,
                args(x, sim),
                WorkloadImage.NAME,
                List.of(
                    "sh",
                    "-c",
                    "ls /dev | grep davinci; /opt/npu/burn --alloc-via rt meminfo alloc "
                        + quota
                        + " alloc 1"),
                120);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.lines().stream().filter(l -> l.startsWith("davinci")))
            .containsExactly("davinci2", "davinci_manager");
        assertThat(r.line("meminfo ok")).contains("total=" + quota);
        assertThat(
                r.lines().stream()
                    .filter(l -> l.startsWith("alloc"))
                    .map(l -> l.replaceAll(" (ptr|pid|thread)=\\S+", "")))
            .containsExactly("alloc ok size=" + quota, "alloc fail code=207001 size=1");
      }

      double[] shares = ChipSplit.measure("HamiPodmanIT", podman, null, args(a, sim), args(b, sim));
      assertThat(shares[0]).as("core 25 pod's share").isBetween(0.20, 0.30);
      assertThat(shares[1]).as("core 75 pod's share").isBetween(0.70, 0.80);
    } finally {
      c.close();
    }
  }

  private ContainerAllocation allocate(
      HamiComponents c, String pod, long bindTime, int memMib, int core, String deviceId)
      throws Exception {
    node(client, Map.of("hami.io/mutex.lock", "2024-01-01T00:00:00Z,default," + pod));
    pod(
        client,
        pod,
        bindTime,
        Map.of(
            "huawei.com/vnpu-mode",
            "hami-core",
            "hami.io/Ascend910B3-devices-to-allocate",
            "U2,Ascend910B3," + memMib + "," + core + ":;",
            "huawei.com/Ascend910B3",
            "[{\"UUID\":\"U2\",\"memory\":" + memMib + ",\"core\":" + core + "}]"),
        List.of(),
        List.of("main"));
    return c.resourceManager().allocate(List.of(deviceId));
  }

  /**
   * The runtime arguments of an answer: what the kubelet passes (env, mounts, no devices), the
   * Ascend Docker Runtime's device nodes for {@code ASCEND_VISIBLE_DEVICES} (the chip's node and
   * the management nodes, here the simulated host's), and the simulated driver's shared state.
   */
  static List<String> args(ContainerAllocation x, Path sim) {
    List<DeviceNode> devices = new ArrayList<>(x.devices());
    for (String n : List.of("davinci_manager", "devmm_svm", "hisi_hdc")) {
      devices.add(new DeviceNode("/dev/" + n, sim.resolve("dev/" + n).toString(), "rwm"));
    }
    for (String phy : x.envs().get("ASCEND_VISIBLE_DEVICES").split(",")) {
      devices.add(
          new DeviceNode("/dev/davinci" + phy, sim.resolve("dev/davinci" + phy).toString(), "rwm"));
    }
    List<String> args = new ArrayList<>(Podman.allocateArgs(x.envs(), x.mounts(), devices));
    args.addAll(
        List.of("-v", sim + ":" + sim, "-e", "VNPU_SIM_ROOT=" + sim, "-e", "VNPU_SIM_QUIET=1"));
    return args;
  }

  /** The simulated host's device nodes ({@code vnpu-sim-ctl nodes}, as {@code dcmi_init}). */
  static void createDeviceNodes(Path nativeDir, Path sim) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(nativeDir.resolve("vnpu-sim-ctl").toString(), "nodes")
            .redirectErrorStream(true);
    pb.environment().put("VNPU_SIM_ROOT", sim.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as(out).isZero();
  }
}
