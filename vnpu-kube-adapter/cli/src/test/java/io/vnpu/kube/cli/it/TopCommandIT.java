package io.vnpu.kube.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.quota.host.process.LibcSignalSender;
import io.vnpu.quota.host.process.UnixSignal;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** {@code vnpu top} from the shaded jar lists the slices of running {@code vnpu run}s. */
class TopCommandIT {

  private static final long GIB = 1L << 30;

  @TempDir Path tmp;

  @Test
  void onceJsonListsRunningSlicesWithMemoryAndProcesses() throws Exception {
    CliJar cli = new CliJar(tmp);
    Process a =
        cli.start(
            "a",
            List.of(
                "run",
                "--memory",
                "2Gi",
                "--weight",
                "1",
                "--name",
                "top-a",
                "--",
                cli.nativeDir().resolve("npu-burn").toString(),
                "alloc",
                "1G",
                "sleep",
                "60000"));
    Process b =
        cli.start(
            "b",
            List.of(
                "run", "--memory", "4Gi", "--weight", "3", "--name", "top-b", "--", "sleep", "60"));
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!cli.out("a").contains("alloc ok") && System.nanoTime() < deadline) Thread.sleep(20);
      assertThat(cli.out("a")).as(cli.err("a")).contains("alloc ok size=1073741824");
      CliJar.await(cli.stateDir().resolve("slices/top-b/region"), 60);

      CliJar.Result r = cli.run("top", List.of("top", "--once", "--json", "--interval", "0.3"), 60);
      assertThat(r.exitCode()).as(r.stderr()).isZero();
      JsonNode root = new ObjectMapper().readTree(r.stdout());
      assertThat(root.get("simulated").asBoolean()).isTrue();
      assertThat(root.get("stateDir").asString()).isEqualTo(cli.stateDir().toString());
      JsonNode slices = root.get("slices");
      assertThat(slices).hasSize(2);
      JsonNode sa = slices.get(0);
      JsonNode sb = slices.get(1);
      assertThat(sa.get("name").asString()).isEqualTo("top-a");
      assertThat(sa.get("memoryLimitBytes").asLong()).isEqualTo(2 * GIB);
      // aclrtMalloc pads each allocation by up to 64 bytes, as real ACL does
      assertThat(sa.get("memoryUsedBytes").asLong()).isBetween(GIB, GIB + 64);
      assertThat(sa.get("targetSharePct").asDouble()).isEqualTo(25.0);
      assertThat(sa.get("stale").asBoolean()).isFalse();
      assertThat(sa.get("processes")).hasSize(1);
      assertThat(sa.get("processes").get(0).get("memoryUsedBytes").asLong())
          .isBetween(GIB, GIB + 64);
      assertThat(sa.get("processes").get(0).get("command").asString()).contains("npu-burn");
      assertThat(sb.get("name").asString()).isEqualTo("top-b");
      assertThat(sb.get("memoryLimitBytes").asLong()).isEqualTo(4 * GIB);
      assertThat(sb.get("memoryUsedBytes").asLong()).isZero();
      assertThat(sb.get("targetSharePct").asDouble()).isEqualTo(75.0);
      assertThat(sb.get("ownerPid").asLong()).isEqualTo(b.pid());

      CliJar.Result live =
          cli.run("live", List.of("top", "--iterations", "2", "--interval", "0.2"), 60);
      assertThat(live.exitCode()).as(live.stderr()).isZero();
      // not a terminal: two views one after the other, no escape codes in a pipe or file
      assertThat(live.stdout()).doesNotContain("\033[");
      assertThat(live.stdout().split("vnpu top - ", -1)).hasSize(3);
      assertThat(live.stdout())
          .contains("2 slices on 1 NPU")
          .contains("top-a")
          .contains("top-b")
          .contains("1.0 GiB/2.0 GiB");
    } finally {
      for (Process p : List.of(a, b)) {
        new LibcSignalSender().send(p.pid(), UnixSignal.TERM);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      }
    }
    assertThat(a.exitValue()).isEqualTo(143);
    assertThat(b.exitValue()).isEqualTo(143);
    CliJar.Result after =
        cli.run("after", List.of("top", "--once", "--json", "--interval", "0.1"), 60);
    assertThat(new ObjectMapper().readTree(after.stdout()).get("slices")).isEmpty();
  }

  @Test
  void qQuitsTheLiveViewOnATerminalWithoutEnter() throws Exception {
    CliJar cli = new CliJar(tmp);
    // no --iterations: only the key ends it
    Process top = cli.startOnTerminal("tty", List.of("top", "--interval", "0.2"));
    try {
      // a frame is printed only after the first wait for a key, so the terminal is in single-key
      // mode (stty -icanon -echo) by then
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!cli.out("tty").contains("0 slices")
          && top.isAlive()
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(top.isAlive()).as(cli.out("tty") + cli.err("tty")).isTrue();
      assertThat(cli.out("tty")).contains("0 slices");
      // still refreshing: an x is not a quit
      OutputStream keys = top.getOutputStream();
      keys.write('x');
      keys.flush();
      int frames = frames(cli.out("tty"));
      deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (frames(cli.out("tty")) < frames + 2 && System.nanoTime() < deadline) Thread.sleep(20);
      assertThat(top.isAlive()).isTrue();
      assertThat(frames(cli.out("tty"))).isGreaterThanOrEqualTo(frames + 2);

      keys.write('q'); // no Enter
      keys.flush();
      assertThat(top.waitFor(30, TimeUnit.SECONDS)).as(cli.out("tty")).isTrue();
      assertThat(top.exitValue()).as(cli.out("tty")).isZero();
    } finally {
      if (top.isAlive()) {
        top.descendants().forEach(ProcessHandle::destroyForcibly);
        top.destroyForcibly();
      }
    }
  }

  // issue 24: the Kubernetes soft slices of a node agent's directory, made by the one mechanism
  @Test
  void kubeDirAddsTheAgentsSoftSlices() throws Exception {
    CliJar cli = new CliJar(tmp);
    Path data = tmp.resolve("dra-data");
    io.vnpu.kube.softslice.SoftSliceLayout layout =
        io.vnpu.kube.softslice.SoftSliceLayout.vnpu(
            data, io.vnpu.kube.limiter.LimiterFiles.hami(tmp.resolve("limiter")));
    try (io.vnpu.kube.softslice.SoftSlices slices =
        new io.vnpu.kube.softslice.SoftSlices(
            layout,
            io.vnpu.kube.resource.QuotaRegionFactory.writing(
                new io.vnpu.quota.region.QuotaRegions()),
            () -> {})) {
      slices.prepare(
          layout.dirOf("claim-uid", "npu"),
          List.of(
              new io.vnpu.api.slice.SliceDevice(
                  new io.vnpu.api.slice.NpuRef(0, "U0"),
                  new io.vnpu.api.slice.SliceShare.SoftQuota(
                      4 * GIB, 25, 25, io.vnpu.api.model.Priority.NORMAL))),
          "demo/infer/npu");
      CliJar.Result r =
          cli.run(
              "kube",
              List.of(
                  "top", "--once", "--json", "--interval", "0.1", "--kube-dir", data.toString()),
              60);
      assertThat(r.exitCode()).as(r.stderr()).isZero();
      JsonNode s = new ObjectMapper().readTree(r.stdout()).get("slices");
      assertThat(s).hasSize(1);
      assertThat(s.get(0).get("name").asString()).isEqualTo("demo/infer/npu");
      assertThat(s.get(0).get("memoryLimitBytes").asLong()).isEqualTo(4 * GIB);
      assertThat(s.get(0).get("capPct").asInt()).isEqualTo(25);
      assertThat(s.get(0).get("targetSharePct").asDouble()).isEqualTo(25.0);
    }
  }

  private static int frames(String out) {
    return out.split("\033\\[H\033\\[2J", -1).length - 1;
  }
}
