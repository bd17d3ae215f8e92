package io.vnpu.kube.cli;

import io.vnpu.quota.host.HostSlices;
import io.vnpu.quota.host.SliceRecord;
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
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code vnpu slices}: the slices of this host's state directory (those {@code vnpu run} creates),
 * and {@code vnpu slices rm NAME} to remove one left behind by a killed owner.
 */
@Command(name = "slices", mixinStandardHelpOptions = true, sortOptions = false,
    subcommands = SlicesCommand.Remove.class,
    description = {
        "List the slices on this host: name, NPU logic ID, owner pid and whether the owner is alive.",
        "A slice whose owner is gone was left by a killed vnpu run; remove it with 'vnpu slices rm NAME' "
            + "(vnpu run and vnpu top also remove such slices when they start)."})
public final class SlicesCommand implements Callable<Integer> {

  @Option(names = "--state-dir", paramLabel = "DIR", description = "Where slices live (as for vnpu run).")
  Path stateDir;

  @Spec
  CommandSpec spec;

  private final Map<String, String> environment;
  private final int uid;

  public SlicesCommand() {
    this(System.getenv(), CliServices.uid());
  }

  SlicesCommand(Map<String, String> environment, int uid) {
    this.environment = environment;
    this.uid = uid;
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
  @Command(name = "rm", mixinStandardHelpOptions = true,
      description = "Remove slice NAME (its record and quota region). A slice whose owner is alive is "
          + "refused unless --force: stop the owner instead.")
  static final class Remove implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "NAME", description = "The slice to remove.")
    String name;

    @Option(names = "--force", description = "Remove the slice even though its owner is alive "
        + "(the owner's workload then runs without its quota region).")
    boolean force;

    @picocli.CommandLine.ParentCommand
    SlicesCommand parent;

    @Spec
    CommandSpec spec;

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
          err.println("vnpu slices rm: slice " + name + " is in use by pid " + r.get().ownerPid()
              + "; stop that process, or use --force");
          return 1;
        }
        slices.store().remove(name);
        out.println("removed slice " + name);
        out.flush();
        return 0;
      } catch (IOException | RuntimeException e) {
        err.println("vnpu slices rm: " + e.getMessage());
        return 1;
      }
    }
  }
}
