package io.vnpu.kube.cli.demo;

import io.vnpu.api.model.MemorySize;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.kube.cli.chart.LineChart;
import io.vnpu.kube.cli.chart.ReferenceLine;
import io.vnpu.kube.cli.chart.Series;
import io.vnpu.kube.cli.chart.SvgWriter;
import io.vnpu.kube.cli.node.NodeAccess;
import io.vnpu.kube.cli.node.NodeInfo;
import io.vnpu.quota.host.HostSliceRequest;
import io.vnpu.quota.host.HostSlices;
import io.vnpu.quota.host.SliceSession;
import io.vnpu.quota.host.SliceStore;
import io.vnpu.quota.host.StateDir;
import io.vnpu.quota.host.WorkloadEnvironment;
import io.vnpu.quota.region.QuotaRegions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The main job end to end on the bundled simulated node: discover the node through DCMI, carve two
 * slices out of NPU 0 (16 GiB at weight 1, 32 GiB at weight 3), show the memory quota refusing an
 * over-quota allocation with 207001 while the neighbour is unaffected, show the AI-core shares
 * converging to 25/75 (simulator ground truth), and write a chart and a report.
 */
public final class DemoRun {

  static final long GIB = 1L << 30;
  public static final int STEPS = 6;
  static final double SAMPLE_SECONDS = 0.25;

  /** Kernel length of the saturating workloads, microseconds. */
  static final int KERNEL_US = 1000;

  /**
   * What the demo needs.
   *
   * @param outDir where the report and chart go
   * @param stateDir where the slices live (visible to {@code vnpu top})
   * @param nativeDir the native build directory (npu-burn, simulated CANN)
   * @param limiter the limiter library
   * @param profile simulator profile
   * @param burnSeconds how long both slices saturate the NPU
   * @param tolerancePp allowed share error, percentage points
   */
  public record Settings(
      Path outDir,
      StateDir stateDir,
      Path nativeDir,
      Path limiter,
      String profile,
      double burnSeconds,
      double tolerancePp) {
    public Settings {
      Objects.requireNonNull(outDir, "outDir");
      Objects.requireNonNull(stateDir, "stateDir");
      Objects.requireNonNull(nativeDir, "nativeDir");
      Objects.requireNonNull(limiter, "limiter");
      Objects.requireNonNull(profile, "profile");
      if (!(burnSeconds >= 2))
        throw new IllegalArgumentException("burnSeconds must be >= 2: " + burnSeconds);
    }
  }

  /** A slice of the demo and what it is meant to get. */
  private record Plan(String label, long memoryBytes, int weight) {}

  private final Settings settings;
  private final NodeAccess nodes;
  private final DemoProgress progress;
  private final PrintWriter err;
  private final List<Process> workloads = new ArrayList<>();

  public DemoRun(Settings settings, NodeAccess nodes, DemoProgress progress, PrintWriter err) {
    this.settings = settings;
    this.nodes = nodes;
    this.progress = progress;
    this.err = err;
  }

  /**
   * Runs the demo, writes {@code report.md} and {@code share.svg} into the output directory and
   * returns the report ({@link DemoReport#passed()} says whether every check passed).
   */
  public DemoReport run() throws IOException, InterruptedException {
    Files.createDirectories(settings.outDir());
    Path simRoot = Files.createTempDirectory("vnpu-demo-sim-");
    List<DemoCheck> checks = new ArrayList<>();
    List<SliceSession> sessions = new ArrayList<>();
    HostSlices slices = new HostSlices(settings.stateDir(), new QuotaRegions());
    try {
      progress.step(
          "Discover the node through DCMI (bundled simulated node, profile "
              + settings.profile()
              + ")");
      NodeInfo node = nodes.discover(settings.profile(), simRoot, err);
      Npu npu =
          node.npu(0)
              .orElseThrow(() -> new IllegalStateException("the simulated node has no NPU 0"));
      progress.detail(node.npus().size() + " NPUs via " + node.library());
      progress.detail(
          String.format(
              Locale.ROOT,
              "NPU 0: %s, phy ID %d, %s HBM, %d AI Cores, %s",
              npu.chipName(),
              npu.phyId(),
              MemorySize.format(npu.hbmBytes()),
              npu.aiCores(),
              npu.health().healthy() ? "healthy" : "unhealthy"));
      checks.add(
          new DemoCheck(
              "NPU 0 discovered through DCMI",
              "healthy, HBM >= 48.0 GiB",
              MemorySize.format(npu.hbmBytes())
                  + (npu.health().healthy() ? ", healthy" : ", unhealthy"),
              npu.health().healthy() && npu.hbmBytes() >= 48 * GIB));

      progress.step("Create two slices on NPU 0");
      List<Plan> plans = List.of(new Plan("demo-a", 16 * GIB, 1), new Plan("demo-b", 32 * GIB, 3));
      SliceStore store = slices.store();
      for (Plan p : plans) {
        sessions.add(createSlice(slices, p, npu));
        progress.detail(
            String.format(
                Locale.ROOT,
                "%s: %s HBM quota, AI-core weight %d -> %s",
                p.label(),
                MemorySize.format(p.memoryBytes()),
                p.weight(),
                store.regionFile(p.label())));
      }
      WorkloadEnvironment.NodeRuntime sim = node.runtime();
      SliceSession a = sessions.get(0);
      SliceSession b = sessions.get(1);

      progress.step("Memory: demo-a asks for more than its 16 GiB while demo-b allocates 28 GiB");
      Process pa =
          start(
              a, sim, "memory", List.of("alloc", "12G", "sleep", "300", "alloc", "8G", "meminfo"));
      Process pb = start(b, sim, "memory", List.of("alloc", "24G", "alloc", "4G", "sleep", "600"));
      List<BurnResult> ra = BurnResult.parseAll(finish(pa, a, "memory"));
      List<BurnResult> rb = BurnResult.parseAll(finish(pb, b, "memory"));
      DemoReport.MemoryTrial memory = memoryTrial(ra, rb);
      progress.detail(
          "demo-a: 12.0 GiB granted, 8.0 GiB more -> "
              + (memory.refusalCode() == 0 ? "granted" : "refused with " + memory.refusalCode()));
      progress.detail(
          "demo-b: "
              + MemorySize.format(memory.neighbourBytes())
              + " -> "
              + (memory.neighbourOk() ? "all granted" : "some refused"));
      long virtTotal =
          ra.stream()
              .filter(r -> r.what().equals("meminfo") && r.outcome().equals("ok"))
              .mapToLong(r -> r.number("total"))
              .findFirst()
              .orElse(-1);
      progress.detail(
          "aclrtGetMemInfo inside demo-a reports total "
              + (virtTotal < 0 ? "?" : MemorySize.format(virtTotal)));
      checks.add(
          new DemoCheck(
              "over-quota allocation in demo-a refused",
              "207001 (ACL_ERROR_RT_MEMORY_ALLOCATION)",
              memory.refusalCode() == 0 ? "granted" : Integer.toString(memory.refusalCode()),
              memory.refusalCode() == 207001));
      checks.add(
          new DemoCheck(
              "demo-b unaffected by demo-a's refusal",
              "24.0 GiB + 4.0 GiB granted",
              memory.neighbourOk()
                  ? MemorySize.format(memory.neighbourBytes()) + " granted"
                  : "refused",
              memory.neighbourOk() && memory.neighbourBytes() == 28 * GIB));
      checks.add(
          new DemoCheck(
              "memory info virtualised in demo-a",
              "total 16.0 GiB",
              virtTotal < 0 ? "no meminfo result" : "total " + MemorySize.format(virtTotal),
              virtTotal == 16 * GIB));

      progress.step(
          String.format(
              Locale.ROOT,
              "Compute: both slices saturate NPU 0 for %.0f s",
              settings.burnSeconds()));
      DemoReport.ComputeTrial compute = computeTrial(a, b, sim, simRoot, plans);
      for (DemoReport.ShareResult r : compute.results()) {
        boolean ok = Math.abs(r.achievedPct() - r.targetPct()) <= settings.tolerancePp();
        checks.add(
            new DemoCheck(
                r.slice() + " AI-core share",
                String.format(
                    Locale.ROOT, "%.1f %% ± %.0f pp", r.targetPct(), settings.tolerancePp()),
                String.format(Locale.ROOT, "%.1f %%", r.achievedPct()),
                ok));
        progress.detail(
            String.format(
                Locale.ROOT,
                "%s: %.1f %% of NPU 0 (target %.1f %%)",
                r.slice(),
                r.achievedPct(),
                r.targetPct()));
      }

      progress.step("Remove the slices");
      closeAll(sessions);
      boolean gone = plans.stream().noneMatch(p -> Files.exists(store.sliceDir(p.label())));
      checks.add(
          new DemoCheck(
              "slices removed",
              "no slice directory left",
              gone ? "none left" : "left behind",
              gone));
      progress.detail(gone ? "both regions removed" : "a slice directory was left behind");

      progress.step("Write the chart and the report into " + settings.outDir());
      DemoReport report =
          new DemoReport(
              "bundled simulated node, profile "
                  + settings.profile()
                  + " ("
                  + node.npus().size()
                  + " x "
                  + npu.chipName()
                  + ", "
                  + MemorySize.format(npu.hbmBytes())
                  + " HBM each), discovered through DCMI ("
                  + node.library()
                  + ")",
              plans.stream()
                  .map(
                      p ->
                          new DemoReport.SliceRow(
                              p.label(),
                              0,
                              p.memoryBytes(),
                              p.weight(),
                              100.0 * p.weight() / plans.stream().mapToInt(Plan::weight).sum()))
                  .toList(),
              memory,
              compute,
              checks,
              progress.elapsedSeconds(),
              "share.svg");
      Files.writeString(
          settings.outDir().resolve("share.svg"),
          new SvgWriter().write(chart(compute, plans)),
          StandardCharsets.UTF_8);
      Files.writeString(
          settings.outDir().resolve("report.md"),
          new MarkdownReport().write(report),
          StandardCharsets.UTF_8);
      progress.detail(
          settings.outDir().resolve("report.md") + ", " + settings.outDir().resolve("share.svg"));
      return report;
    } finally {
      for (Process p : workloads) p.destroyForcibly();
      closeAll(sessions);
      slices.close();
      deleteTree(simRoot);
    }
  }

  /** Kills the workloads and removes the slices (for a shutdown hook); idempotent. */
  public void abort() {
    for (Process p : List.copyOf(workloads)) p.destroyForcibly();
  }

  private SliceSession createSlice(HostSlices slices, Plan p, Npu npu) throws IOException {
    return slices.create(
        new HostSliceRequest(
            p.label(),
            npu.logicId(),
            new SliceDevice(
                NpuRef.of(npu),
                new SliceShare.SoftQuota(p.memoryBytes(), p.weight(), 0, Priority.NORMAL)),
            List.of("npu-burn")));
  }

  private Process start(
      SliceSession s, WorkloadEnvironment.NodeRuntime sim, String phase, List<String> steps)
      throws IOException {
    List<String> argv = new ArrayList<>();
    argv.add(settings.nativeDir().resolve("npu-burn").toString());
    argv.add("--device");
    argv.add("0");
    argv.addAll(steps);
    ProcessBuilder pb = new ProcessBuilder(argv);
    WorkloadEnvironment env =
        new WorkloadEnvironment(
            settings.limiter(),
            s.regionFile(),
            s.record().memoryLimitBytes(),
            s.record().weight(),
            0,
            sim);
    pb.environment().putAll(env.variables(Map.copyOf(pb.environment())));
    pb.redirectErrorStream(true);
    pb.redirectOutput(log(s, phase).toFile());
    Process p = pb.start();
    workloads.add(p);
    return p;
  }

  private Path log(SliceSession s, String phase) {
    return settings.outDir().resolve(s.record().name() + "-" + phase + ".log");
  }

  private String finish(Process p, SliceSession s, String phase)
      throws IOException, InterruptedException {
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(
          "npu-burn in " + s.record().name() + " did not finish within 30 s; see " + log(s, phase));
    }
    String out = Files.readString(log(s, phase), StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new IOException(
          "npu-burn in "
              + s.record().name()
              + " exited with "
              + p.exitValue()
              + ": "
              + out.strip().replace('\n', ' '));
    }
    return out;
  }

  static DemoReport.MemoryTrial memoryTrial(List<BurnResult> a, List<BurnResult> b) {
    List<BurnResult> allocA = a.stream().filter(r -> r.what().equals("alloc")).toList();
    long held =
        allocA.stream()
            .filter(r -> r.outcome().equals("ok"))
            .mapToLong(r -> r.number("size"))
            .sum();
    BurnResult over = allocA.size() >= 2 ? allocA.get(1) : null;
    int code = over == null ? -1 : over.outcome().equals("fail") ? (int) over.number("code") : 0;
    long request = over == null ? 0 : over.number("size");
    if (code == 0) held -= request;
    List<BurnResult> allocB = b.stream().filter(r -> r.what().equals("alloc")).toList();
    boolean bOk = !allocB.isEmpty() && allocB.stream().allMatch(r -> r.outcome().equals("ok"));
    long bBytes =
        allocB.stream()
            .filter(r -> r.outcome().equals("ok"))
            .mapToLong(r -> r.number("size"))
            .sum();
    return new DemoReport.MemoryTrial("demo-a", held, request, code, "demo-b", bBytes, bOk);
  }

  private DemoReport.ComputeTrial computeTrial(
      SliceSession a,
      SliceSession b,
      WorkloadEnvironment.NodeRuntime sim,
      Path simRoot,
      List<Plan> plans)
      throws IOException, InterruptedException {
    String secs = Long.toString(Math.round(settings.burnSeconds()));
    Process pa = start(a, sim, "compute", List.of("burn", Integer.toString(KERNEL_US), secs));
    Process pb = start(b, sim, "compute", List.of("burn", Integer.toString(KERNEL_US), secs));
    SimGroundTruth truth = new SimGroundTruth(simRoot);
    long t0 = System.nanoTime();
    List<double[]> readings = new ArrayList<>(); // {seconds, busyA ns, busyB ns}
    List<DemoReport.ShareSample> samples = new ArrayList<>();
    long deadline = t0 + (long) ((settings.burnSeconds() + 20) * 1e9);
    double[] prev = null;
    while (pa.isAlive() || pb.isAlive()) {
      if (System.nanoTime() > deadline)
        throw new IOException("the compute workloads did not end in time");
      Thread.sleep((long) (SAMPLE_SECONDS * 1000));
      double t = (System.nanoTime() - t0) / 1e9;
      if (t > settings.burnSeconds()) break;
      double[] now = {t, truth.busyNs(pa.pid(), 0), truth.busyNs(pb.pid(), 0)};
      readings.add(now);
      if (prev != null) {
        double wall = (now[0] - prev[0]) * 1e9;
        samples.add(
            new DemoReport.ShareSample("demo-a", t, clampPct(100 * (now[1] - prev[1]) / wall)));
        samples.add(
            new DemoReport.ShareSample("demo-b", t, clampPct(100 * (now[2] - prev[2]) / wall)));
      }
      prev = now;
    }
    finish(pa, a, "compute");
    finish(pb, b, "compute");
    double settle = Math.min(2.0, settings.burnSeconds() / 4);
    double[] first =
        readings.stream()
            .filter(r -> r[0] >= settle)
            .findFirst()
            .orElseThrow(() -> new IOException("no ground-truth readings after " + settle + " s"));
    double[] last = readings.get(readings.size() - 1);
    double wall = (last[0] - first[0]) * 1e9;
    if (wall <= 0) throw new IOException("the steady-state window is empty");
    int wsum = plans.stream().mapToInt(Plan::weight).sum();
    List<DemoReport.ShareResult> results =
        List.of(
            new DemoReport.ShareResult(
                "demo-a",
                100.0 * plans.get(0).weight() / wsum,
                clampPct(100 * (last[1] - first[1]) / wall)),
            new DemoReport.ShareResult(
                "demo-b",
                100.0 * plans.get(1).weight() / wsum,
                clampPct(100 * (last[2] - first[2]) / wall)));
    return new DemoReport.ComputeTrial(
        "the simulator's ground truth (device time per process)",
        first[0],
        last[0],
        results,
        samples);
  }

  private static double clampPct(double v) {
    return Math.max(0, Math.min(100, v));
  }

  static LineChart chart(DemoReport.ComputeTrial c, List<?> plans) {
    List<Series> series = new ArrayList<>();
    String[] colors = {"#1f77b4", "#d62728"};
    int i = 0;
    List<ReferenceLine> refs = new ArrayList<>();
    for (DemoReport.ShareResult r : c.results()) {
      String color = colors[i++ % colors.length];
      series.add(
          new Series(
              r.slice() + String.format(Locale.ROOT, " (%.1f %%)", r.achievedPct()),
              color,
              c.samples().stream()
                  .filter(s -> s.slice().equals(r.slice()))
                  .map(s -> new Series.Point(s.seconds(), s.sharePct()))
                  .toList()));
      refs.add(
          new ReferenceLine(
              r.targetPct(), String.format(Locale.ROOT, "target %.0f %%", r.targetPct()), color));
    }
    double xMax =
        Math.max(
            1, c.samples().stream().mapToDouble(DemoReport.ShareSample::seconds).max().orElse(1));
    return new LineChart(
        "AI-core share of NPU 0 per slice",
        "time since start (s)",
        "share of NPU time (%)",
        xMax,
        0,
        100,
        series,
        refs);
  }

  private void closeAll(List<SliceSession> sessions) {
    for (SliceSession s : sessions) {
      try {
        s.close();
      } catch (IOException e) {
        err.println(
            "vnpu demo: could not remove slice " + s.record().name() + ": " + e.getMessage());
      }
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) return;
    try (var walk = Files.walk(root)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList())
        Files.deleteIfExists(p);
    }
  }
}
