package io.vnpu.kube.cli;

import io.vnpu.api.model.MemorySize;
import io.vnpu.api.model.Npu;
import io.vnpu.kube.cli.node.NodeAccess;
import io.vnpu.kube.cli.node.NodeInfo;
import io.vnpu.quota.host.HostSlices;
import io.vnpu.quota.host.SliceRecord;
import io.vnpu.quota.host.SliceResize;
import io.vnpu.quota.host.SliceStore;
import io.vnpu.quota.host.StateDir;
import io.vnpu.quota.region.QuotaRegions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code vnpu slices}: the slices of this host's state directory (those {@code vnpu run} creates),
 * {@code vnpu slices rm NAME} to remove one left behind by a killed owner, and {@code vnpu slices
 * resize NAME} to change a running slice's memory quota and AI-core share.
 */
@Command(
    name = "slices",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    subcommands = {SlicesCommand.Remove.class, SlicesCommand.Resize.class},
    description = {
      "List the slices on this host: name, NPU logic ID, owner pid and whether the owner is alive.",
      "A slice whose owner is gone was left by a killed vnpu run; remove it with 'vnpu slices rm NAME' "
          + "(vnpu run and vnpu top also remove such slices when they start).",
      "Change a running slice's quota or share with 'vnpu slices resize NAME --memory SIZE --core PCT'."
    })
public final class SlicesCommand implements Callable<Integer> {

  @Option(
      names = "--state-dir",
      paramLabel = "DIR",
      description = "Where slices live (as for vnpu run).")
  Path stateDir;

  @Spec CommandSpec spec;

  private final Map<String, String> environment;
  private final int uid;
  private final NodeAccess nodes;

  public SlicesCommand() {
    this(System.getenv(), CliServices.uid(), CliServices.nodeAccess());
  }

  SlicesCommand(Map<String, String> environment, int uid, NodeAccess nodes) {
    this.environment = environment;
    this.uid = uid;
    this.nodes = nodes;
  }

  StateDir stateDir() {
    return StateDir.resolve(stateDir, environment, uid);
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    StateDir dir = stateDir();
    List<SliceRecord> records;
    try (HostSlices slices = new HostSlices(dir, new QuotaRegions())) {
      records = slices.list();
    } catch (IOException | RuntimeException e) {
      err.println("vnpu slices: " + e.getMessage());
      return 1;
    }
    TextTable table = new TextTable("NAME", "NPU", "OWNER-PID", "OWNER");
    for (SliceRecord r : records) {
      table.row(r.name(), r.logicId(), r.ownerPid(), SliceStore.ownerGone(r) ? "gone" : "alive");
    }
    table.print(out);
    out.flush();
    return 0;
  }

  /** {@code vnpu slices rm NAME}: removes one slice; a live one only with {@code --force}. */
  @Command(
      name = "rm",
      mixinStandardHelpOptions = true,
      description =
          "Remove slice NAME (its record and quota region). A slice whose owner is alive is "
              + "refused unless --force: stop the owner instead.")
  static final class Remove implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "NAME", description = "The slice to remove.")
    String name;

    @Option(
        names = "--force",
        description =
            "Remove the slice even though its owner is alive "
                + "(the owner's workload then runs without its quota region).")
    boolean force;

    @picocli.CommandLine.ParentCommand SlicesCommand parent;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      try {
        SliceRecord.checkName(name);
      } catch (IllegalArgumentException e) {
        err.println("vnpu slices rm: " + e.getMessage() + " (see 'vnpu slices rm --help')");
        return 2;
      }
      StateDir dir = parent.stateDir();
      try (HostSlices slices = new HostSlices(dir, new QuotaRegions())) {
        Optional<SliceRecord> r = slices.store().read(name);
        if (r.isEmpty()) {
          err.println("vnpu slices rm: no slice named '" + name + "' in " + dir.root());
          return 1;
        }
        if (!SliceStore.ownerGone(r.get()) && !force) {
          err.println(
              "vnpu slices rm: slice "
                  + name
                  + " is in use by pid "
                  + r.get().ownerPid()
                  + "; stop that process, or use --force");
          return 1;
        }
        if (SliceStore.ownerGone(r.get())) {
          slices.remove(name); // also frees its compute-registry entry (HostSlices#remove)
        } else {
          // --force on a live slice: its owner frees its registry entry when it ends
          slices.store().remove(name);
        }
        out.println("removed slice " + name);
        out.flush();
        return 0;
      } catch (IOException | RuntimeException e) {
        err.println("vnpu slices rm: " + e.getMessage());
        return 1;
      }
    }
  }

  /**
   * {@code vnpu slices resize NAME}: changes a running slice's memory quota and AI-core share
   * without restarting it ({@link HostSlices#resize}); the slice's processes see the change within
   * a second.
   */
  @Command(
      name = "resize",
      mixinStandardHelpOptions = true,
      sortOptions = false,
      description = {
        "Change the memory quota or AI-core share of running slice NAME without restarting it.",
        "A quota below what the slice holds refuses further allocations until its usage falls under it; "
            + "nothing is freed. A larger quota admits at once. The share changes within a second.",
        "Slices of the DRA plugin and the device plugins keep the sizes their scheduler charged."
      })
  static final class Resize implements Callable<Integer> {

    @Parameters(
        index = "0",
        paramLabel = "NAME",
        description = "The slice (as 'vnpu slices' lists it).")
    String name;

    @Option(
        names = "--memory",
        paramLabel = "SIZE",
        converter = RunCommand.SizeConverter.class,
        description =
            "New device-memory quota: a quantity (8Gi, 512Mi) or an integer of MiB, at most the NPU's HBM.")
    Long memoryBytes;

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Compute compute;

    static final class Compute {
      @Option(
          names = "--core",
          paramLabel = "PCT",
          converter = OptionRanges.CorePercent.class,
          description =
              "New hard cap: at most PCT %% of the NPU's AI-core time (1..100), weight PCT (as vnpu run "
                  + "--core). A slice of --policy elastic or best-effort gets the cap too: change its "
                  + "share with --weight to keep it borrowing idle time.")
      Integer corePct;

      @Option(
          names = "--weight",
          paramLabel = "W",
          converter = OptionRanges.Weight.class,
          description = "New share weight (1..10000) and no cap (as vnpu run --weight).")
      Integer weight;
    }

    @picocli.CommandLine.ParentCommand SlicesCommand parent;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      String cmd = "vnpu slices resize";
      try {
        SliceRecord.checkName(name);
      } catch (IllegalArgumentException e) {
        err.println(cmd + ": " + e.getMessage() + " (see 'vnpu slices resize --help')");
        return 2;
      }
      SliceResize change = SliceResize.none();
      if (memoryBytes != null) change = change.withMemory(memoryBytes);
      if (compute != null && compute.corePct != null) change = change.withCore(compute.corePct);
      if (compute != null && compute.weight != null) change = change.withWeight(compute.weight);
      if (change.isEmpty()) {
        err.println(
            cmd
                + ": nothing to change: give --memory, --core or --weight (see 'vnpu slices resize --help')");
        return 2;
      }
      StateDir dir = parent.stateDir();
      try (HostSlices slices = new HostSlices(dir, new QuotaRegions())) {
        Optional<SliceRecord> r = slices.store().read(name);
        if (r.isEmpty()) {
          err.println(cmd + ": no slice named '" + name + "' in " + dir.root());
          return 1;
        }
        if (memoryBytes != null) {
          Optional<String> over = overTheChip(r.get(), memoryBytes, err);
          if (over.isPresent()) {
            err.println(cmd + ": " + over.get());
            return 1;
          }
        }
        SliceRecord was = r.get();
        SliceRecord now = slices.resize(name, change);
        out.println(
            "resized slice "
                + name
                + ": memory "
                + memory(was.memoryLimitBytes())
                + " -> "
                + memory(now.memoryLimitBytes())
                + ", weight "
                + was.weight()
                + " -> "
                + now.weight()
                + ", cap "
                + cap(was.capPct())
                + " -> "
                + cap(now.capPct()));
        out.flush();
        return 0;
      } catch (IOException | RuntimeException e) {
        err.println(cmd + ": " + e.getMessage());
        return 1;
      }
    }

    /** Why {@code bytes} does not fit the slice's NPU, if it does not. */
    private Optional<String> overTheChip(SliceRecord r, long bytes, PrintWriter err) {
      NodeInfo node = parent.nodes.discover(null, null, err);
      Optional<Npu> npu = node.npus().stream().filter(n -> n.phyId() == r.phyId()).findFirst();
      if (npu.isEmpty())
        return Optional.of(
            "slice " + r.name() + ": no NPU with phy ID " + r.phyId() + " on this node");
      long hbm = npu.get().hbmBytes();
      if (hbm > 0 && bytes > hbm) {
        return Optional.of(
            "--memory "
                + MemorySize.format(bytes)
                + " exceeds NPU "
                + npu.get().logicId()
                + "'s HBM of "
                + MemorySize.format(hbm));
      }
      return Optional.empty();
    }

    private static String memory(long bytes) {
      return bytes == 0 ? "unlimited" : MemorySize.format(bytes);
    }

    private static String cap(int pct) {
      return pct == 0 ? "none" : pct + " %";
    }
  }
}
