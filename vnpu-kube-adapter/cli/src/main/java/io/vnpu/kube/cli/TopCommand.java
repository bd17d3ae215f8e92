package io.vnpu.kube.cli;

import io.vnpu.kube.cli.node.NodeAccess;
import io.vnpu.kube.cli.node.NodeInfo;
import io.vnpu.kube.cli.top.HostScanner;
import io.vnpu.kube.cli.top.HostSnapshot;
import io.vnpu.kube.cli.top.KubeSliceScanner;
import io.vnpu.kube.cli.top.QuitKey;
import io.vnpu.kube.cli.top.TopJson;
import io.vnpu.kube.cli.top.TopRenderer;
import io.vnpu.quota.host.HostSlices;
import io.vnpu.quota.host.SliceStore;
import io.vnpu.quota.host.StateDir;
import io.vnpu.quota.region.QuotaRegions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code vnpu top}: a live view of every slice on this host ({@code vnpu run} and Kubernetes). */
@Command(
    name = "top",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Show every slice on this host (vnpu run and the Kubernetes soft slices of HAMi, MindCluster and DRA), refreshed every second: memory used/limit as a bar, the AI-core "
          + "share achieved against the target, and the processes of each slice. Press q to quit.",
      "The achieved share is measured between two refreshes; --once samples over one interval.",
      "Not on a terminal (a pipe, a file), the views follow each other without clearing the screen."
    })
public final class TopCommand implements Callable<Integer> {

  @Option(names = "--once", description = "Print one view (after one measuring interval) and exit.")
  boolean once;

  @Option(
      names = "--json",
      description = "Print JSON (implies --once unless --iterations is given).")
  boolean json;

  @Option(
      names = {"-n", "--iterations"},
      paramLabel = "N",
      converter = OptionRanges.Count.class,
      description = "Stop after N refreshes, N >= 1 (default: run until interrupted or q).")
  Integer iterations;

  @Option(
      names = "--interval",
      paramLabel = "SECONDS",
      defaultValue = "1",
      converter = OptionRanges.IntervalSeconds.class,
      description = "Seconds between refreshes, 0.1..3600 (default ${DEFAULT-VALUE}).")
  double interval;

  @Option(
      names = "--state-dir",
      paramLabel = "DIR",
      description = "Where slices live (as for vnpu run).")
  Path stateDir;

  @Option(
      names = "--kube-dir",
      paramLabel = "DIR",
      description =
          "A node agent's soft-slice directory whose Kubernetes slices to show too: HAMi's "
              + "HOOK_PATH, the DRA driver's data directory, MindCluster's -softShareDevConfigDir; repeatable "
              + "(default: /var/lib/vnpu/hami and /var/lib/kubelet/plugins/npu.huawei.com, where present).")
  java.util.List<Path> kubeDirs;

  @Option(
      names = "--sim-profile",
      converter = io.vnpu.kube.app.SimulatorProfileConverter.class,
      paramLabel = "NAME",
      description = "Use the bundled simulated node.")
  String simProfile;

  @Spec CommandSpec spec;

  private final NodeAccess nodes;
  private final Map<String, String> environment;
  private final int uid;
  private final boolean terminal;

  public TopCommand() {
    // a terminal gets the live view redrawn in place; a pipe or a file one view after another,
    // without escape codes
    this(CliServices.nodeAccess(), System.getenv(), CliServices.uid(), System.console() != null);
  }

  TopCommand(NodeAccess nodes, Map<String, String> environment, int uid, boolean terminal) {
    this.nodes = nodes;
    this.environment = environment;
    this.uid = uid;
    this.terminal = terminal;
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (kubeDirs != null) {
      for (Path d : kubeDirs) {
        // a misspelt directory must not look like a node without Kubernetes slices
        if (!Files.isDirectory(d)) {
          throw new ParameterException(
              spec.commandLine(),
              "invalid value for option '--kube-dir': '"
                  + d
                  + "': "
                  + (Files.exists(d) ? "not a directory" : "no such directory"));
        }
      }
    }
    NodeInfo node;
    try {
      node = nodes.discover(simProfile, null, err);
    } catch (RuntimeException e) {
      err.println("vnpu top: " + e.getMessage());
      return 1;
    }
    StateDir dir = StateDir.resolve(stateDir, environment, uid);
    try (HostSlices slices = new HostSlices(dir, new QuotaRegions())) {
      RunCommand.reapStale(slices, err, "vnpu top");
    }
    HostScanner scanner =
        new HostScanner(
            new SliceStore(dir),
            new QuotaRegions(),
            node.simulated(),
            Clock.systemUTC(),
            System::nanoTime,
            err,
            new KubeSliceScanner(
                kubeDirs != null
                    ? kubeDirs
                    : java.util.List.of(
                        KubeSliceScanner.DEFAULT_HAMI_DIR, KubeSliceScanner.DEFAULT_DRA_DIR),
                node.npus().stream()
                    .collect(
                        java.util.stream.Collectors.toMap(
                            io.vnpu.api.model.Npu::phyId,
                            io.vnpu.api.model.Npu::logicId,
                            (a, b) -> a)),
                new QuotaRegions(),
                System::nanoTime,
                err));
    long sleepMs = Math.round(interval * 1000);
    boolean single = once || (json && iterations == null);
    if (single) {
      scanner.scan(); // first reading of the compute counters
      Thread.sleep(sleepMs);
      print(out, scanner.scan(), false);
      printHealth(out, node);
      return 0;
    }
    scanner.scan();
    try (QuitKey keys = json ? QuitKey.sleepOnly() : QuitKey.forThisProcess()) {
      for (int i = 0; iterations == null || i < iterations; i++) {
        if (keys.awaitQuit(sleepMs)) break;
        if (!json && !terminal && i > 0) out.println();
        print(out, scanner.scan(), !json && terminal);
        printHealth(out, node);
      }
    }
    return 0;
  }

  /** Text mode: one line per NPU the fault engine found unhealthy when top started. */
  private void printHealth(PrintWriter out, NodeInfo node) {
    if (json) return;
    for (io.vnpu.api.model.Npu n : node.npus()) {
      if (!n.health().healthy())
        out.println("NPU " + n.logicId() + " UNHEALTHY: " + n.health().reason());
    }
    out.flush();
  }

  private void print(PrintWriter out, HostSnapshot snap, boolean clear) {
    if (json) {
      out.println(new TopJson().write(snap));
    } else {
      if (clear) out.print(io.vnpu.kube.cli.top.TopRenderer.CLEAR_SCREEN);
      out.print(new TopRenderer(ZoneId.systemDefault()).render(snap));
    }
    out.flush();
  }
}
