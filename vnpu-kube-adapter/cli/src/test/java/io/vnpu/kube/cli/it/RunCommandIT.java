package io.vnpu.kube.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.quota.host.process.LibcSignalSender;
import io.vnpu.quota.host.process.UnixSignal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vnpu run} from the shaded jar: exit codes, signals, cleanup, the limiter in the workload.
 */
class RunCommandIT {

  @TempDir Path tmp;

  private Path slice(CliJar cli, String name) {
    return cli.stateDir().resolve("slices").resolve(name);
  }

  @Test
  void propagatesTheExitCodeSummarisesAndRemovesTheSlice() throws Exception {
    CliJar cli = new CliJar(tmp);
    CliJar.Result r =
        cli.run(
            "exit7",
            List.of(
                "run",
                "--memory",
                "1Gi",
                "--name",
                "exit7",
                "--",
                "/bin/sh",
                "-c",
                "test -f \"$NPU_LOCAL_SHM_PATH\" && test -n \"$LD_PRELOAD\" && exit 7; exit 1"),
            60);
    assertThat(r.exitCode()).as(r.stderr()).isEqualTo(7);
    assertThat(r.stderr()).contains("using the bundled simulated node");
    assertThat(r.stderr())
        .containsPattern(
            "vnpu run: slice exit7 on NPU 0: exit 7 after [0-9.]+ s; peak HBM 0 B of 1\\.0 GiB; AI-core share");
    assertThat(slice(cli, "exit7")).doesNotExist();
  }

  @Test
  void selectsTheNpuByPhyIdAndNamesAnUnknownDevice() throws Exception {
    CliJar cli = new CliJar(tmp);
    CliJar.Result r =
        cli.run(
            "byphy",
            List.of("run", "--device", "phy:1", "--name", "byphy", "--", "/bin/sh", "-c", "exit 3"),
            60);
    assertThat(r.exitCode()).as(r.stderr()).isEqualTo(3);
    assertThat(r.stderr()).contains("vnpu run: slice byphy on NPU 1: exit 3");

    CliJar.Result unknown =
        cli.run("unknown", List.of("run", "--device", "phy:99", "--", "true"), 60);
    assertThat(unknown.exitCode()).as(unknown.stderr()).isEqualTo(1);
    assertThat(unknown.stderr().lines().filter(l -> l.startsWith("vnpu run:")).toList())
        .singleElement()
        .asString()
        .matches(
            "vnpu run: --device phy:99: no NPU with phy ID 99 \\(this node has phy IDs \\[0, 1, .*\\]\\)");
  }

  @Test
  void theWorkloadRunsUnderTheLimiter() throws Exception {
    CliJar cli = new CliJar(tmp);
    CliJar.Result r =
        cli.run(
            "burn",
            List.of(
                "run",
                "--memory",
                "1Gi",
                "--name",
                "burn",
                cli.nativeDir().resolve("npu-burn").toString(),
                "alloc",
                "768M",
                "alloc",
                "512M",
                "meminfo"),
            60);
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    assertThat(r.stdout())
        .contains("alloc ok size=805306368")
        .contains("alloc fail code=207001 size=536870912")
        .contains("meminfo ok")
        .contains("total=1073741824");
    assertThat(r.stderr())
        .containsPattern(
            "peak HBM 768\\.0 MiB of 1\\.0 GiB \\(1 allocation refused with 207001\\)");
    assertThat(slice(cli, "burn")).doesNotExist();
  }

  @Test
  void thePolicyDecidesWhatTheShareMeansAlone() throws Exception {
    CliJar cli = new CliJar(tmp);
    String burn = cli.nativeDir().resolve("npu-burn").toString();
    // alone on its NPU: an elastic 25 % share borrows the idle chip, a fixed 25 % share is its
    // ceiling
    CliJar.Result elastic =
        cli.run(
            "elastic",
            List.of(
                "run",
                "--policy",
                "elastic",
                "--core",
                "25",
                "--name",
                "el",
                "--",
                burn,
                "burn",
                "1000",
                "2"),
            60);
    assertThat(elastic.exitCode()).as(elastic.stderr()).isZero();
    CliJar.Result fixed =
        cli.run(
            "fixed",
            List.of(
                "run",
                "--policy",
                "fixed-share",
                "--core",
                "25",
                "--name",
                "fx",
                "--",
                burn,
                "burn",
                "1000",
                "2"),
            60);
    assertThat(fixed.exitCode()).as(fixed.stderr()).isZero();
    assertThat(busyShare(elastic.stdout())).as(elastic.stdout()).isGreaterThan(0.9);
    assertThat(busyShare(fixed.stdout())).as(fixed.stdout()).isBetween(0.2, 0.3);
    // a bad value: one line naming the option and the value
    CliJar.Result bad = cli.run("bad", List.of("run", "--policy", "burst", "--", "true"), 60);
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.stderr()).contains("'burst': expected fixed-share, elastic or best-effort");
    CliJar.Result noShare =
        cli.run("noshare", List.of("run", "--policy", "fixed-share", "--", "true"), 60);
    assertThat(noShare.exitCode()).isEqualTo(2);
    assertThat(noShare.stderr()).contains("vnpu run: --policy fixed-share needs --core PCT");
  }

  /** busy_ns / wall_ns of npu-burn's "burn done" line. */
  private static double busyShare(String stdout) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("burn done .*busy_ns=(\\d+) wall_ns=(\\d+)")
            .matcher(stdout);
    assertThat(m.find()).as(stdout).isTrue();
    return Double.parseDouble(m.group(1)) / Double.parseDouble(m.group(2));
  }

  @Test
  void forwardsSigintToTheChildWhichChoosesTheExitCode() throws Exception {
    CliJar cli = new CliJar(tmp);
    Path ready = tmp.resolve("ready");
    Process vnpu =
        cli.start(
            "trap",
            List.of(
                "run",
                "--name",
                "trap",
                "--",
                "/bin/sh",
                "-c",
                "trap 'exit 42' INT; touch " + ready + "; while :; do sleep 0.05; done"));
    CliJar.await(ready, 60);
    new LibcSignalSender().send(vnpu.pid(), UnixSignal.INT);
    assertThat(vnpu.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(vnpu.exitValue()).as(cli.err("trap")).isEqualTo(42);
    assertThat(cli.err("trap")).contains("vnpu run: slice trap on NPU 0: exit 42 after");
    assertThat(slice(cli, "trap")).doesNotExist();
  }

  @Test
  void sigtermKillsTheChildAndGives143() throws Exception {
    CliJar cli = new CliJar(tmp);
    Process vnpu = cli.start("term", List.of("run", "--name", "term", "--", "sleep", "60"));
    CliJar.await(slice(cli, "term").resolve("region"), 60);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (vnpu.descendants().findAny().isEmpty() && System.nanoTime() < deadline) Thread.sleep(20);
    ProcessHandle child = vnpu.descendants().findFirst().orElseThrow();
    new LibcSignalSender().send(vnpu.pid(), UnixSignal.TERM);
    assertThat(vnpu.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(vnpu.exitValue()).as(cli.err("term")).isEqualTo(143);
    assertThat(child.isAlive()).isFalse();
    assertThat(cli.err("term")).contains("exit 143 (SIGTERM)");
    assertThat(slice(cli, "term")).doesNotExist();
  }

  @Test
  void aChildKilledWithSigkillGives137AndTheSliceIsRemoved() throws Exception {
    CliJar cli = new CliJar(tmp);
    Process vnpu =
        cli.start(
            "kill9", List.of("run", "--memory", "2Gi", "--name", "kill9", "--", "sleep", "60"));
    CliJar.await(slice(cli, "kill9").resolve("region"), 60);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (vnpu.descendants().findAny().isEmpty() && System.nanoTime() < deadline) Thread.sleep(20);
    ProcessHandle child = vnpu.descendants().findFirst().orElseThrow();
    new LibcSignalSender().send(child.pid(), UnixSignal.KILL);
    assertThat(vnpu.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(vnpu.exitValue()).isEqualTo(137);
    assertThat(cli.err("kill9")).contains("exit 137 (SIGKILL)");
    assertThat(slice(cli, "kill9")).doesNotExist();
  }

  @Test
  void aRunKilledWithSigkillLeavesAnOrphanThatSlicesListsAndTheNextRunReaps() throws Exception {
    CliJar cli = new CliJar(tmp);
    Process vnpu =
        cli.start(
            "owner",
            List.of(
                "run",
                "--device",
                "1",
                "--memory",
                "2Gi",
                "--name",
                "orphan",
                "--",
                "sleep",
                "60"));
    CliJar.await(slice(cli, "orphan").resolve("region"), 60);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (vnpu.descendants().findAny().isEmpty() && System.nanoTime() < deadline) Thread.sleep(20);
    ProcessHandle child = vnpu.descendants().findFirst().orElseThrow();
    // the owner dies without any cleanup of its own
    new LibcSignalSender().send(vnpu.pid(), UnixSignal.KILL);
    assertThat(vnpu.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(vnpu.exitValue()).isEqualTo(137);
    child.destroyForcibly();
    assertThat(slice(cli, "orphan").resolve("slice.json")).exists();
    assertThat(slice(cli, "orphan").resolve("region")).exists();

    CliJar.Result listed = cli.run("list", List.of("slices"), 60);
    assertThat(listed.exitCode()).as(listed.stderr()).isZero();
    assertThat(listed.stdout())
        .isEqualTo(
            "NAME    NPU  OWNER-PID  OWNER\n"
                + String.format("orphan  1    %-9d  gone%n", vnpu.pid()));

    // any later run (or top) removes slices whose owner is gone before it starts its own
    CliJar.Result next = cli.run("next", List.of("run", "--name", "next", "--", "true"), 60);
    assertThat(next.exitCode()).as(next.stderr()).isZero();
    assertThat(next.stderr()).contains("vnpu run: removed stale slices (owner gone): orphan\n");
    assertThat(slice(cli, "orphan")).doesNotExist();
    CliJar.Result after = cli.run("after", List.of("slices"), 60);
    assertThat(after.stdout()).isEqualTo("NAME  NPU  OWNER-PID  OWNER\n");
  }

  @Test
  void slicesRmRemovesTheOrphanOfAKilledRunAndRefusesALiveOne() throws Exception {
    CliJar cli = new CliJar(tmp);
    Process live = cli.start("live", List.of("run", "--name", "live", "--", "sleep", "60"));
    Process dead = cli.start("dead", List.of("run", "--name", "dead", "--", "sleep", "60"));
    try {
      CliJar.await(slice(cli, "live").resolve("region"), 60);
      CliJar.await(slice(cli, "dead").resolve("region"), 60);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (dead.descendants().findAny().isEmpty() && System.nanoTime() < deadline)
        Thread.sleep(20);
      List<ProcessHandle> children = dead.descendants().toList();
      new LibcSignalSender().send(dead.pid(), UnixSignal.KILL);
      assertThat(dead.waitFor(30, TimeUnit.SECONDS)).isTrue();
      children.forEach(ProcessHandle::destroyForcibly);

      CliJar.Result refused = cli.run("rm-live", List.of("slices", "rm", "live"), 60);
      assertThat(refused.exitCode()).isEqualTo(1);
      assertThat(refused.stderr())
          .isEqualTo(
              "vnpu slices rm: slice live is in use by pid "
                  + live.pid()
                  + "; stop that process, or use --force\n");
      CliJar.Result removed = cli.run("rm-dead", List.of("slices", "rm", "dead"), 60);
      assertThat(removed.exitCode()).as(removed.stderr()).isZero();
      assertThat(removed.stdout()).isEqualTo("removed slice dead\n");
      assertThat(slice(cli, "dead")).doesNotExist();
      assertThat(slice(cli, "live").resolve("region")).exists();
    } finally {
      new LibcSignalSender().send(live.pid(), UnixSignal.TERM);
      assertThat(live.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(slice(cli, "live")).doesNotExist();
  }

  @Test
  void aMissingCommandIs127AndLeavesNothing() throws Exception {
    CliJar cli = new CliJar(tmp);
    CliJar.Result r =
        cli.run("missing", List.of("run", "--name", "missing", "--", "vnpu-no-such-command"), 60);
    assertThat(r.exitCode()).isEqualTo(127);
    assertThat(r.stderr()).contains("vnpu run: vnpu-no-such-command: command not found");
    assertThat(slice(cli, "missing")).doesNotExist();
    try (var left = Files.list(cli.stateDir().resolve("slices"))) {
      assertThat(left).isEmpty();
    }
  }
}
