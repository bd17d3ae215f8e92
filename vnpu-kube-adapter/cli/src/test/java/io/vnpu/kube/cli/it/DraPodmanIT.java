package io.vnpu.kube.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.vnpu.kube.testing.DraClaims;
import io.vnpu.kube.testing.DraKubeletStandIn;
import io.vnpu.kube.testing.podman.ChipSplit;
import io.vnpu.kube.testing.podman.Podman;
import io.vnpu.kube.testing.podman.WorkloadImage;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CDI specs of {@code vnpu dra --simulate --enable-soft-slicing} (the shaded jar, as a user
 * runs it) applied by a real runtime, podman: {@code podman run --device npu.huawei.com/npu=<id>}
 * with the plugin's {@code --cdi-root} as the runtime's CDI directory and nothing else of ours. A
 * whole chip: the container has its {@code /dev/davinciN} (a character device with the numbers the
 * spec took from the node) and the management nodes, and sees one NPU with all its HBM. Two soft
 * claims of 25 and 75 % on one chip: memory info is each quota, one byte past it is 207001, and
 * running together they split the chip 25/75 within 5 points. After unprepare the runtime refuses
 * the CDI ID.
 *
 * <p>The containers get the simulated host's state directory and {@code VNPU_SIM_ROOT} besides the
 * spec: the simulated driver's shared state, as the kernel driver is shared on a real node.
 */
class DraPodmanIT {
  private static final String DRIVER = ClusterStandIn.DRIVER;
  private static final long GIB = 1L << 30;

  @TempDir Path tmp;

  @Test
  void theRuntimeAppliesTheCdiSpecsOfWholeAndSoftClaims() throws Exception {
    Podman.assumeAvailable("DraPodmanIT");
    Podman podman = new Podman(tmp.resolve("podman"));
    WorkloadImage.build(podman, tmp, Path.of(CliJar.required("vnpu.native.dir")));

    CliJar cli = new CliJar(tmp);
    Path cdi = Files.createDirectories(tmp.resolve("cdi"));
    try (ClusterStandIn cluster = ClusterStandIn.start(tmp, "demo");
        DraKubeletStandIn kubelet = new DraKubeletStandIn();
        ClusterStandIn.Dra dra =
            cluster.startDra(
                cli,
                kubelet,
                tmp,
                "--enable-soft-slicing",
                "--chip-modes",
                "0-3=whole,4-7=soft",
                "--limiter-dir",
                tmp.resolve("limiter").toString(),
                "--limiter-assets",
                cli.nativeDir().toString())) {
      Path draSocket = dra.draSocket();
      cluster.awaitSlices();
      List<String> sim =
          List.of(
              "-v",
              cli.simRoot() + ":" + cli.simRoot(),
              "-e",
              "VNPU_SIM_ROOT=" + cli.simRoot(),
              "-e",
              "VNPU_SIM_QUIET=1");

      // a whole chip: its node as on a real host, the management nodes, one NPU with all its HBM
      Claim whole =
          prepare(
              cluster,
              kubelet,
              draSocket,
              "whole",
              DraClaims.result("npu", DRIVER, "node-1", "npu-2"));
      long nullRdev =
          (Long) Files.getAttribute(Path.of("/dev/null"), "unix:rdev", LinkOption.NOFOLLOW_LINKS);
      assertThat(Files.readString(cdi.resolve(DRIVER + "-npu_" + whole.uid + ".json")))
          .contains(
              "\"path\" : \"/dev/davinci2\"",
              "\"type\" : \"c\"",
              "\"major\" : " + major(nullRdev),
              "\"minor\" : " + minor(nullRdev));
      Podman.Result r =
          podman.run(
              cdi,
              with(sim, "--device", whole.cdiId),
              WorkloadImage.NAME,
              List.of(
                  "sh",
                  "-c",
                  "ls /dev; stat -c '%n %F %t:%T' /dev/davinci* /dev/devmm_svm"
                      + " /dev/hisi_hdc; echo env $ASCEND_VISIBLE_DEVICES; /opt/npu/burn meminfo;"
                      + " /opt/npu/burn --device 1 meminfo; echo second=$?"),
              120);
      assertThat(r.exit()).as(r.err()).isZero();
      assertThat(r.lines().stream().filter(l -> l.startsWith("davinci")))
          .containsExactly("davinci2", "davinci_manager");
      String numbers = Long.toHexString(major(nullRdev)) + ":" + Long.toHexString(minor(nullRdev));
      assertThat(r.lines())
          .contains(
              "/dev/davinci2 character special file " + numbers,
              "/dev/davinci_manager character special file " + numbers,
              "/dev/devmm_svm character special file " + numbers,
              "/dev/hisi_hdc character special file " + numbers,
              "env 2",
              "second=1");
      assertThat(r.line("meminfo ok")).contains("total=" + 64 * GIB);

      // two soft claims on npu-5: each sees its quota and gets 207001 one byte past it
      Claim a = prepare(cluster, kubelet, draSocket, "soft-a", soft("npu-5", "sa", "4Gi", "25"));
      Claim b = prepare(cluster, kubelet, draSocket, "soft-b", soft("npu-5", "sb", "8Gi", "75"));
      for (Claim c : List.of(a, b)) {
        long quota = c == a ? 4 * GIB : 8 * GIB;
        r =
            podman.run(
                cdi,
                with(sim, "--device", c.cdiId),
                WorkloadImage.NAME,
                List.of(
                    "/opt/npu/burn",
                    "--alloc-via",
                    "rt",
                    "meminfo",
                    "alloc",
                    Long.toString(quota),
                    "alloc",
                    "1"),
                120);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.line("meminfo ok")).contains("total=" + quota);
        assertThat(
                r.lines().stream()
                    .filter(l -> l.startsWith("alloc"))
                    .map(l -> l.replaceAll(" (ptr|pid|thread)=\\S+", "")))
            .containsExactly("alloc ok size=" + quota, "alloc fail code=207001 size=1");
      }
      double[] shares =
          ChipSplit.measure(
              "DraPodmanIT",
              podman,
              cdi,
              with(sim, "--device", a.cdiId),
              with(sim, "--device", b.cdiId));
      assertThat(shares[0]).as("25 %% claim's share of npu-5").isBetween(0.20, 0.30);
      assertThat(shares[1]).as("75 %% claim's share of npu-5").isBetween(0.70, 0.80);

      // unprepared: the spec is gone and the runtime refuses the ID
      for (Claim c : List.of(whole, a, b)) {
        cluster.unprepare(kubelet, draSocket, "demo", c.name, c.uid);
      }
      r = podman.run(cdi, with(sim, "--device", a.cdiId), WorkloadImage.NAME, List.of("true"), 60);
      assertThat(r.exit()).isNotZero();
      assertThat(r.err()).contains("unresolvable CDI devices " + a.cdiId);
      assertThat(cli.err("dra")).doesNotContain("ERROR", "Exception");
    }
  }

  /** A prepared claim: its name, UID and the one CDI device ID of its one device. */
  record Claim(String name, String uid, String cdiId) {}

  private static Claim prepare(
      ClusterStandIn cluster,
      DraKubeletStandIn kubelet,
      Path socket,
      String name,
      DeviceRequestAllocationResult result) {
    ClusterStandIn.Prepared c = cluster.prepare(kubelet, socket, "demo", name, "u-" + name, result);
    assertThat(c.response().getError()).as("prepare " + name).isEmpty();
    List<String> ids = c.response().getDevices(0).getCdiDeviceIdsList();
    assertThat(ids).hasSize(1);
    return new Claim(name, c.uid(), ids.get(0));
  }

  private static DeviceRequestAllocationResult soft(
      String device, String shareId, String memory, String cores) {
    return new DeviceRequestAllocationResultBuilder()
        .withRequest("npu")
        .withDriver(DRIVER)
        .withPool("node-1")
        .withDevice(device)
        .withShareID(shareId)
        .withConsumedCapacity(Map.of("memory", new Quantity(memory), "cores", new Quantity(cores)))
        .build();
  }

  private static List<String> with(List<String> base, String... more) {
    List<String> all = new java.util.ArrayList<>(base);
    all.addAll(List.of(more));
    return all;
  }

  /** glibc's {@code gnu_dev_major}. */
  static long major(long rdev) {
    return ((rdev >>> 8) & 0xfffL) | ((rdev >>> 32) & 0xfffff000L);
  }

  /** glibc's {@code gnu_dev_minor}. */
  static long minor(long rdev) {
    return (rdev & 0xffL) | ((rdev >>> 12) & 0xffffff00L);
  }
}
