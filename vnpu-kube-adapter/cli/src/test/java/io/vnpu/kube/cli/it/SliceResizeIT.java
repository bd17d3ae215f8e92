package io.vnpu.kube.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.quota.host.process.LibcSignalSender;
import io.vnpu.quota.host.process.UnixSignal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vnpu slices resize} on a running {@code npu-burn} slice of {@code vnpu run} on the
 * simulated node (issue 28): the AI-core share is measured with the simulator's ground truth, the
 * device time the slice's tasks occupied in a window (task rings, {@code cann-sim-busy --window},
 * as the accuracy suite does), in a window that starts one second after the resize command
 * returned; memory by what the workload's own allocations get and by the simulator's per-process
 * HBM.
 */
class SliceResizeIT {
  private static final long MIB = 1L << 20;

  /** Allowed share error, percentage points (the accuracy suite's tolerance). */
  private static final double TOL_PP = 5;

  @TempDir Path tmp;

  @Test
  void memoryAndCoreOfARunningNpuBurnSliceChangeWithinASecond() throws Exception {
    CliJar cli = new CliJar(tmp);
    Path burn = cli.nativeDir().resolve("npu-burn");
    Path mem = tmp.resolve("mem.out");
    Path sig = Files.createDirectories(tmp.resolve("sig"));
    // one slice, two processes: a saturating burner and a memory stepper that waits for the test
    String script =
        "\"$0\" burn 1000 120 > /dev/null 2>&1 & b=$!; "
            + "\"$0\" alloc 768M await "
            + sig.resolve("a")
            + " alloc 64M await "
            + sig.resolve("b")
            + " alloc 512M meminfo await "
            + sig.resolve("c")
            + " > "
            + mem
            + " 2>&1; s=$?; kill $b; wait $b; exit $s";
    Process run =
        cli.start(
            "run",
            List.of(
                "run",
                "--memory",
                "1Gi",
                "--core",
                "50",
                "--name",
                "rs",
                "--",
                "/bin/sh",
                "-c",
                script,
                burn.toString()),
            Map.of("VNPU_SIM_TASK_RING", "1", "VNPU_SIM_QUIET", "1"));
    try {
      awaitLine(mem, "alloc ok size=805306368", run, cli);
      Thread.sleep(1000); // the burner is past its first launches

      long t0 = now(cli);
      sleepUntil(cli, t0 + 1_500_000_000L);
      assertShare(cli, t0, t0 + 1_500_000_000L, 50, "before the resize");

      // the share: cap 50 % -> 20 %
      CliJar.Result core = cli.run("core20", List.of("slices", "resize", "rs", "--core", "20"), 60);
      long t1 = now(cli);
      assertThat(core.exitCode()).as(core.stderr()).isZero();
      assertThat(core.stdout())
          .isEqualTo(
              "resized slice rs: memory 1.0 GiB -> 1.0 GiB, weight 50 -> 20, cap 50 % -> 20 %\n");
      sleepUntil(cli, t1 + 2_500_000_000L);
      assertShare(cli, t1 + 1_000_000_000L, t1 + 2_500_000_000L, 20, "1 s after --core 20");

      // memory: a quota below use (768 MiB held) refuses, frees nothing
      CliJar.Result shrink =
          cli.run("shrink", List.of("slices", "resize", "rs", "--memory", "512Mi"), 60);
      assertThat(shrink.exitCode()).as(shrink.stderr()).isZero();
      Files.createFile(sig.resolve("a"));
      awaitLine(mem, "alloc fail code=207001 size=67108864", run, cli);
      assertThat(stepperHbm(cli, mem)).isGreaterThanOrEqualTo(768 * MIB);

      // a larger quota admits at once; quota and share in one command: cap 20 % -> 80 %
      CliJar.Result grow =
          cli.run("grow", List.of("slices", "resize", "rs", "--memory", "2Gi", "--core", "80"), 60);
      long t2 = now(cli);
      assertThat(grow.exitCode()).as(grow.stderr()).isZero();
      assertThat(grow.stdout())
          .isEqualTo(
              "resized slice rs: memory 512.0 MiB -> 2.0 GiB, weight 20 -> 80, cap 20 % -> 80 %\n");
      Files.createFile(sig.resolve("b"));
      awaitLine(mem, "alloc ok size=536870912", run, cli);
      assertThat(Files.readString(mem)).contains("total=2147483648");
      sleepUntil(cli, t2 + 2_500_000_000L);
      assertShare(cli, t2 + 1_000_000_000L, t2 + 2_500_000_000L, 80, "1 s after --core 80");

      // bad values and the chip's bound: one line each, nothing changed
      CliJar.Result over =
          cli.run("over", List.of("slices", "resize", "rs", "--memory", "100Gi"), 60);
      assertThat(over.exitCode()).isEqualTo(1);
      assertThat(over.stderr().lines().filter(l -> l.startsWith("vnpu slices resize:")).toList())
          .containsExactly(
              "vnpu slices resize: --memory 100.0 GiB exceeds NPU 0's HBM of 64.0 GiB");
      assertThat(over.stderr()).doesNotContain("Exception").doesNotContain("\tat ");

      Files.createFile(sig.resolve("c"));
      assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(run.exitValue()).as(cli.err("run")).isZero();
      // the summary of vnpu run gives the slice's last sizes
      assertThat(cli.err("run"))
          .containsPattern(
              "vnpu run: slice rs on NPU 0: exit 0 after [0-9.]+ s; peak HBM "
                  + "[0-9.]+ [MG]iB of 2\\.0 GiB \\(1 allocation refused with 207001\\)");
    } finally {
      if (run.isAlive()) {
        new LibcSignalSender().send(run.pid(), UnixSignal.TERM);
        run.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  /** CLOCK_MONOTONIC ns, the simulator's clock. */
  private static long now(CliJar cli) throws IOException, InterruptedException {
    return Long.parseLong(busy(cli, "--now").strip());
  }

  private static void sleepUntil(CliJar cli, long monoNs) throws IOException, InterruptedException {
    long left = monoNs - now(cli);
    if (left > 0) Thread.sleep(left / 1_000_000 + 1);
  }

  private static String busy(CliJar cli, String... args) throws IOException, InterruptedException {
    List<String> cmd =
        new java.util.ArrayList<>(List.of(cli.nativeDir().resolve("cann-sim-busy").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("VNPU_SIM_ROOT", cli.simRoot().toString());
    pb.redirectErrorStream(true);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  /**
   * The slice's share of NPU 0 in [t1, t2] by the ground truth (only this slice runs on the host).
   */
  private static void assertShare(CliJar cli, long t1, long t2, double targetPct, String when)
      throws IOException, InterruptedException {
    String out = busy(cli, "--window", Long.toString(t1), Long.toString(t2));
    long ns = 0;
    Matcher m = Pattern.compile("^window .*busy_ns=(\\d+)", Pattern.MULTILINE).matcher(out);
    while (m.find()) ns += Long.parseLong(m.group(1));
    double pct = 100.0 * ns / (t2 - t1);
    System.out.printf(
        "[vnpu] SliceResizeIT: share %s: %.2f %% (target %.0f %%, load %s)%n",
        when, pct, targetPct, Files.readString(Path.of("/proc/loadavg")).strip());
    assertThat(pct)
        .as("share %s (ground truth: %s)", when, out)
        .isBetween(targetPct - TOL_PP, targetPct + TOL_PP);
  }

  /** HBM the memory stepper holds by the simulator's records ({@code hbm pid=P ... used=}). */
  private static long stepperHbm(CliJar cli, Path mem) throws IOException, InterruptedException {
    Matcher pid =
        Pattern.compile("alloc ok size=805306368 .*pid=(\\d+)").matcher(Files.readString(mem));
    assertThat(pid.find()).isTrue();
    Matcher m =
        Pattern.compile("^hbm pid=" + pid.group(1) + " .*used=(\\d+)", Pattern.MULTILINE)
            .matcher(busy(cli));
    assertThat(m.find()).as("no hbm line for the stepper").isTrue();
    return Long.parseLong(m.group(1));
  }

  private static void awaitLine(Path file, String line, Process run, CliJar cli) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.exists(file) || !Files.readString(file).contains(line)) {
      if (!run.isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError(
            "no '"
                + line
                + "' in "
                + (Files.exists(file) ? Files.readString(file) : "(none)")
                + "; vnpu run stderr: "
                + cli.err("run"));
      }
      Thread.sleep(20);
    }
  }
}
