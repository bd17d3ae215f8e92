package io.vnpu.kube.mindcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.slice.DeviceNode;
import io.vnpu.api.slice.Mount;
import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginClient;
import io.vnpu.kube.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.limiter.LimiterFixture;
import io.vnpu.kube.limiter.LimiterVerifier;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import io.vnpu.kube.resource.QuotaRegionFactory;
import io.vnpu.kube.softslice.SoftSliceLayout;
import io.vnpu.kube.softslice.SoftSlices;
import io.vnpu.kube.testing.podman.ChipSplit;
import io.vnpu.kube.testing.podman.Podman;
import io.vnpu.kube.testing.podman.WorkloadImage;
import io.vnpu.quota.region.QuotaRegions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MindCluster soft-share Allocate answers (Volcano's softShareDev annotations, {@code
 * -shareDevCount=100}, no Ascend Docker Runtime so the answer carries DeviceSpecs) run by a real
 * runtime, podman: each answer turned into {@code podman run} arguments as the kubelet passes it
 * ({@code -e}, {@code -v}, {@code --device} for every DeviceSpec: the simulated host's character
 * devices). The container has exactly its chip's node and the control nodes, memory info is the
 * hbmQuota, one byte past it is 207001, and two pods at aicoreQuota 25 and 75 on one chip split it
 * within 5 points.
 */
@EnableKubernetesMockClient(crud = true)
class MindClusterPodmanIT {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-07-24T10:15:30Z"), ZoneOffset.UTC);
  private static final String R = "huawei.com/Ascend910";
  private static final long MIB = 1L << 20;

  KubernetesClient client;

  @TempDir Path dir;

  @Test
  void softShareAnswersRunUnderTheRuntimeWithTheirQuotaAndShare() throws Exception {
    Podman.assumeAvailable("MindClusterPodmanIT");
    Podman podman = new Podman(dir.resolve("podman"));
    WorkloadImage.build(podman, dir, Path.of(System.getProperty("vnpu.native.dir")));
    LimiterFiles limiter = LimiterFixture.installInto(dir.resolve("limiter"));
    QuotaRegions regions = new QuotaRegions();
    Path simRoot = dir.resolve("sim");
    try (KubeletStandIn kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
        SimHost host = new SimHost("910B3x8", simRoot)) {
      HealthMonitor health = MindClusterRegistrationTest.healthOf(host);
      health.pollOnce();
      // the simulated host's /dev is where the DeviceSpecs point (its dcmi_init made the nodes)
      MindClusterOptions options =
          MindClusterOptions.defaults(VolcanoPodsFixture.NODE)
              .withVolcano(true, true)
              .withShare(100, Optional.of(dir.resolve("softshare")))
              .withRuntime(false, simRoot);
      SoftSlices soft =
          new SoftSlices(
              SoftSliceLayout.vnpu(dir.resolve("softshare"), limiter),
              QuotaRegionFactory.writing(regions),
              LimiterVerifier.forThisMachine(limiter));
      MindClusterComponents components =
          new MindClusterComponents(
              options,
              client,
              () -> client.pods().inAnyNamespace().list().getItems(),
              host.deviceManager,
              health,
              CLOCK,
              Optional.of(soft));
      components.start(null);
      PluginFleet fleet = new PluginFleet(kubelet, components.resourceManagers());
      try {
        softPod("low", "Ascend910-6", "25", "1024");
        ContainerAllocateResponse low = allocate(fleet, "Ascend910-6-0");
        softPod("high", "Ascend910-6", "75", "3072");
        ContainerAllocateResponse high = allocate(fleet, "Ascend910-6-1");
        assertThat(low.getDevicesList())
            .extracting(d -> d.getContainerPath())
            .containsExactly(
                "/dev/davinci_manager", "/dev/hisi_hdc", "/dev/devmm_svm", "/dev/davinci6");

        for (ContainerAllocateResponse x : List.of(low, high)) {
          long quota = (x == low ? 1024 : 3072) * MIB;
          Podman.Result r =
              podman.run(
                  null,
                  args(x, simRoot),
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
              .containsExactly("davinci6", "davinci_manager");
          assertThat(r.line("meminfo ok")).contains("total=" + quota);
          assertThat(
                  r.lines().stream()
                      .filter(l -> l.startsWith("alloc"))
                      .map(l -> l.replaceAll(" (ptr|pid|thread)=\\S+", "")))
              .containsExactly("alloc ok size=" + quota, "alloc fail code=207001 size=1");
        }

        double[] shares =
            ChipSplit.measure(
                "MindClusterPodmanIT", podman, null, args(low, simRoot), args(high, simRoot));
        assertThat(shares[0]).as("aicoreQuota 25 pod's share").isBetween(0.20, 0.30);
        assertThat(shares[1]).as("aicoreQuota 75 pod's share").isBetween(0.70, 0.80);
      } finally {
        fleet.close();
        components.close();
        health.close();
      }
    }
  }

  private void softPod(String name, String chip, String core, String hbm) {
    Map<String, String> a = new HashMap<>(Map.of(R, chip, "predicate-time", "1000000000000000000"));
    a.put("huawei.com/scheduler.softShareDev.aicoreQuota", core);
    a.put("huawei.com/scheduler.softShareDev.hbmQuota", hbm);
    Pod p = VolcanoPodsFixture.pod(name, "uid-" + name, R, 1, a);
    client.pods().inNamespace("default").resource(p).createOr(NonDeletingOperation::update);
  }

  private static ContainerAllocateResponse allocate(PluginFleet fleet, String deviceId)
      throws Exception {
    try (PluginClient plugin = fleet.client(R)) {
      return plugin.allocate(List.of(List.of(deviceId))).getContainerResponses(0);
    }
  }

  /** The answer as the kubelet passes it, plus the simulated driver's shared state. */
  private static List<String> args(ContainerAllocateResponse x, Path sim) {
    List<Mount> mounts =
        x.getMountsList().stream()
            .map(m -> new Mount(m.getContainerPath(), m.getHostPath(), m.getReadOnly()))
            .toList();
    List<DeviceNode> devices =
        x.getDevicesList().stream()
            .map(d -> new DeviceNode(d.getContainerPath(), d.getHostPath(), d.getPermissions()))
            .toList();
    List<String> args = new ArrayList<>(Podman.allocateArgs(x.getEnvsMap(), mounts, devices));
    args.addAll(
        List.of("-v", sim + ":" + sim, "-e", "VNPU_SIM_ROOT=" + sim, "-e", "VNPU_SIM_QUIET=1"));
    return args;
  }
}
