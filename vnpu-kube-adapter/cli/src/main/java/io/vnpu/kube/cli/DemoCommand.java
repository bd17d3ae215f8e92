package io.vnpu.kube.cli;

import io.vnpu.kube.cli.demo.DemoCheck;
import io.vnpu.kube.cli.demo.DemoProgress;
import io.vnpu.kube.cli.demo.DemoReport;
import io.vnpu.kube.cli.demo.DemoRun;
import io.vnpu.kube.cli.node.NodeAccess;
import io.vnpu.quota.files.HostFiles;
import io.vnpu.quota.host.LimiterLibrary;
import io.vnpu.quota.host.StateDir;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code vnpu demo}: the main job end to end on the bundled simulated node. */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "The main job end to end on the bundled simulated node: discover the node through DCMI, create "
          + "two slices on NPU 0 (16 GiB at weight 1, 32 GiB at weight 3), run workloads in both under the "
          + "limiter, show an over-quota allocation refused with 207001 while the neighbour is unaffected, "
          + "show the AI-core shares converging to 25/75, and write a chart (share.svg) and a report "
          + "(report.md).",
      "Exits 0 only when every check passes."
    })
public final class DemoCommand implements Callable<Integer> {

  @Option(
      names = "--out",
      paramLabel = "DIR",
      defaultValue = "vnpu-demo-out",
      description = "Output directory (default ./${DEFAULT-VALUE}).")
  Path out;

  @Option(
      names = "--seconds",
      paramLabel = "S",
      defaultValue = "8",
      converter = OptionRanges.BurnSeconds.class,
      description = "How long both slices saturate the NPU, 2..3600 s (default ${DEFAULT-VALUE}).")
  double seconds;

  @Option(
      names = "--tolerance",
      paramLabel = "PP",
      defaultValue = "5",
      converter = OptionRanges.TolerancePp.class,
      description = "Allowed AI-core share error in percentage points (default ${DEFAULT-VALUE}).")
  double tolerance;

  @Option(
      names = "--sim-profile",
      converter = io.vnpu.kube.app.SimulatorProfileConverter.class,
      paramLabel = "NAME",
      defaultValue = "910B3x8",
      description = "Simulated host profile (default ${DEFAULT-VALUE}).")
  String profile;

  @Option(
      names = "--state-dir",
      paramLabel = "DIR",
      description =
          "Where the demo's slices and compute registry live (default: a private temporary "
              + "directory, removed afterwards; never the host's slices, so nothing else on the NPU is touched).")
  Path stateDir;

  @Option(
      names = "--limiter",
      paramLabel = "PATH",
      description = "The limiter libvnpu.so to preload.")
  Path limiter;

  @Spec CommandSpec spec;

  private final NodeAccess nodes;
  private final Map<String, String> environment;
  private final int uid;

  public DemoCommand() {
    this(CliServices.nodeAccess(), System.getenv(), CliServices.uid());
  }

  DemoCommand(NodeAccess nodes, Map<String, String> environment, int uid) {
    this.nodes = nodes;
    this.environment = environment;
    this.uid = uid;
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter outw = spec.commandLine().getOut();
    Optional<Path> nativeDir = CliServices.nativeDir();
    if (nativeDir.isEmpty()) {
      err.println(
          "vnpu demo: the bundled simulated node needs the native build directory: system property "
              + "vnpu.native.dir or env VNPU_NATIVE_DIR (./vnpu sets it)");
      return 1;
    }
    Path lib;
    try {
      lib = LimiterLibrary.locate(limiter, environment.get(LimiterLibrary.ENV), nativeDir);
    } catch (IllegalStateException e) {
      err.println("vnpu demo: " + e.getMessage());
      return 1;
    }
    Optional<String> unwritable = OutputDirectory.problem(out);
    if (unwritable.isPresent()) {
      err.println("vnpu demo: --out " + out + ": " + unwritable.get());
      return 2;
    }
    Path privateState = null;
    try {
      if (stateDir == null) privateState = Files.createTempDirectory("vnpu-demo-state-");
    } catch (IOException e) {
      err.println(
          "vnpu demo: cannot create a private state directory: " + OutputDirectory.reason(e));
      return 1;
    }
    try {
      return run(
          err,
          outw,
          nativeDir.get(),
          lib,
          StateDir.resolve(stateDir != null ? stateDir : privateState, environment, uid));
    } finally {
      if (privateState != null) {
        try {
          HostFiles.deleteTree(privateState);
        } catch (IOException e) {
          err.println(
              "vnpu demo: could not remove " + privateState + ": " + OutputDirectory.reason(e));
        }
      }
    }
  }

  private int run(PrintWriter err, PrintWriter outw, Path nativeDir, Path lib, StateDir state)
      throws Exception {
    DemoRun.Settings settings;
    try {
      settings =
          new DemoRun.Settings(
              out.toAbsolutePath(), state, nativeDir, lib, profile, seconds, tolerance);
    } catch (IllegalArgumentException e) {
      err.println("vnpu demo: " + e.getMessage());
      return 2;
    }
    DemoProgress progress = new DemoProgress(outw, DemoRun.STEPS, System::nanoTime);
    DemoRun demo = new DemoRun(settings, nodes, progress, err);
    Thread hook = new Thread(demo::abort, "vnpu-demo-abort");
    Runtime.getRuntime().addShutdownHook(hook);
    DemoReport report;
    try {
      report = demo.run();
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // exiting anyway
      }
    }
    outw.println();
    for (DemoCheck c : report.checks()) {
      outw.printf(
          "  %s  %-42s expected %s, got %s%n",
          c.passed() ? "PASS" : "FAIL", c.name(), c.expected(), c.observed());
    }
    outw.printf(
        "vnpu demo: %s in %.1f s; report %s%n",
        report.passed() ? "all checks passed" : "SOME CHECKS FAILED",
        report.durationSeconds(),
        settings.outDir().resolve("report.md"));
    outw.flush();
    return report.passed() ? 0 : 1;
  }
}
