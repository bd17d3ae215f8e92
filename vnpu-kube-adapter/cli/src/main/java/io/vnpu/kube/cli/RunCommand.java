package io.vnpu.kube.cli;

import io.vnpu.api.model.MemorySize;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.SharingPolicy;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.kube.cli.node.DeviceRef;
import io.vnpu.kube.cli.node.NodeAccess;
import io.vnpu.kube.cli.node.NodeInfo;
import io.vnpu.kube.cli.run.RunSummary;
import io.vnpu.quota.host.HostSliceRequest;
import io.vnpu.quota.host.HostSlices;
import io.vnpu.quota.host.LimiterLibrary;
import io.vnpu.quota.host.SliceRecord;
import io.vnpu.quota.host.SliceSession;
import io.vnpu.quota.host.StateDir;
import io.vnpu.quota.host.process.ChildSupervisor;
import io.vnpu.quota.host.process.CommandLaunchException;
import io.vnpu.quota.host.process.ExitStatus;
import io.vnpu.quota.host.process.JvmSignalSource;
import io.vnpu.quota.host.process.LibcSignalSender;
import io.vnpu.quota.region.QuotaRegions;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code vnpu run}: runs one command in a slice of an NPU (memory quota, AI-core share) on a host
 * without Kubernetes, and removes the slice when the command ends.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run CMD in a slice of one NPU: creates the slice's quota region, runs CMD with the limiter "
          + "libvnpu.so preloaded, forwards SIGINT/SIGTERM/SIGHUP to it, exits with its exit code "
          + "(128+N when it died of signal N), prints a usage summary on stderr and removes the slice.",
      "Without an Ascend driver the bundled simulated node is used."
    })
public final class RunCommand implements Callable<Integer> {

  @Option(
      names = "--device",
      paramLabel = "ID",
      defaultValue = "0",
      converter = DeviceConverter.class,
      description =
          "The NPU: a logic ID (0), a phy ID (phy:3) or a die UUID as 'vnpu devices' prints it "
              + "(default ${DEFAULT-VALUE}). Logic IDs shift when a chip drops out; a UUID never does.")
  DeviceRef device;

  @Option(
      names = "--memory",
      paramLabel = "SIZE",
      converter = SizeConverter.class,
      description =
          "Device-memory quota: a quantity (8Gi, 512Mi) or an integer of MiB. Default: unlimited.")
  Long memoryBytes;

  @ArgGroup(exclusive = true, multiplicity = "0..1")
  Compute compute;

  /** --core and --weight exclude each other. */
  static final class Compute {
    @Option(
        names = "--core",
        paramLabel = "PCT",
        converter = OptionRanges.CorePercent.class,
        description =
            "Hard cap: at most PCT %% of the NPU's AI-core time (1..100), and share weight PCT "
                + "among busy slices (with --policy: the share, see there).")
    Integer corePct;

    @Option(
        names = "--weight",
        paramLabel = "W",
        converter = OptionRanges.Weight.class,
        description =
            "Share weight among busy slices of the NPU (1..10000; default 1); idle time goes to busy slices.")
    Integer weight;
  }

  @Option(
      names = "--policy",
      paramLabel = "POLICY",
      converter = SharingPolicyConverter.class,
      description =
          "Sharing policy of the AI-core share (docs/sharing-policies.md): fixed-share (--core PCT is "
              + "guaranteed and the ceiling), elastic (--core PCT is guaranteed, idle time is borrowed) or best-effort "
              + "(no guarantee: only what guaranteed slices leave). Default: none, --core and --weight as described.")
  SharingPolicy policy;

  @Option(
      names = "--priority",
      paramLabel = "CLASS",
      defaultValue = "normal",
      converter = PriorityConverter.class,
      description = "Launch priority: high or normal (default).")
  Priority priority;

  @Option(names = "--name", paramLabel = "NAME", description = "Slice name (default run-<pid>).")
  String name;

  @Option(
      names = "--state-dir",
      paramLabel = "DIR",
      description =
          "Where slices live (default $VNPU_STATE_DIR, $XDG_RUNTIME_DIR/vnpu, /run/vnpu for root, /tmp/vnpu-<uid>).")
  Path stateDir;

  @Option(
      names = "--sim-profile",
      converter = io.vnpu.kube.app.SimulatorProfileConverter.class,
      paramLabel = "NAME",
      description = "Use the bundled simulated node with this profile (e.g. 910B3x8).")
  String simProfile;

  @Option(
      names = "--limiter",
      paramLabel = "PATH",
      description = "The limiter libvnpu.so to preload.")
  Path limiter;

  @Parameters(
      arity = "1..*",
      paramLabel = "CMD",
      description = "The command and its arguments (after --).")
  List<String> command;

  @Spec CommandSpec spec;

  private final NodeAccess nodes;
  private final Map<String, String> environment;
  private final int uid;

  public RunCommand() {
    this(CliServices.nodeAccess(), System.getenv(), CliServices.uid());
  }

  RunCommand(NodeAccess nodes, Map<String, String> environment, int uid) {
    this.nodes = nodes;
    this.environment = environment;
    this.uid = uid;
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    NodeInfo node;
    Path lib;
    try {
      node = nodes.discover(simProfile, null, err);
      lib =
          LimiterLibrary.locate(
              limiter, environment.get(LimiterLibrary.ENV), CliServices.nativeDir());
    } catch (RuntimeException e) {
      err.println("vnpu run: " + e.getMessage());
      return 1;
    }
    Optional<Npu> npu;
    try {
      npu = Optional.of(device.resolve(node.npus()));
    } catch (IllegalArgumentException e) {
      err.println("vnpu run: --device " + device.text() + ": " + e.getMessage());
      return 1;
    }
    int logicId = npu.get().logicId();
    long mem = memoryBytes == null ? 0 : memoryBytes;
    if (mem > npu.get().hbmBytes() && npu.get().hbmBytes() > 0) {
      err.println(
          "vnpu run: --memory "
              + MemorySize.format(mem)
              + " exceeds NPU "
              + logicId
              + "'s HBM of "
              + MemorySize.format(npu.get().hbmBytes()));
      return 1;
    }
    // in range: OptionRanges.CorePercent and Weight refuse anything else while parsing
    int cap = compute != null && compute.corePct != null ? compute.corePct : 0;
    int weight = compute != null && compute.weight != null ? compute.weight : cap > 0 ? cap : 1;
    if (policy == SharingPolicy.FIXED_SHARE && cap == 0) {
      err.println(
          "vnpu run: --policy fixed-share needs --core PCT (the share, which is also the ceiling)");
      return 2;
    }
    if (policy != null && policy != SharingPolicy.FIXED_SHARE) {
      cap = 0; // --core PCT is the guaranteed share (the weight), not a ceiling
    }
    String sliceName = name == null ? "run-" + ProcessHandle.current().pid() : name;
    HostSliceRequest request;
    try {
      request =
          new HostSliceRequest(
              sliceName,
              logicId,
              new SliceDevice(
                  NpuRef.of(npu.get()),
                  new SliceShare.SoftQuota(
                      mem, weight, cap, priority, Optional.ofNullable(policy))),
              command);
    } catch (IllegalArgumentException e) {
      err.println("vnpu run: " + e.getMessage());
      return 2;
    }
    StateDir dir = StateDir.resolve(stateDir, environment, uid);
    HostSlices slices = new HostSlices(dir, new QuotaRegions());
    reapStale(slices, err, "vnpu run");
    SliceSession session;
    try {
      session = slices.create(request);
    } catch (IOException | RuntimeException e) {
      closeQuietly(slices, err);
      err.println(
          "vnpu run: cannot create slice "
              + sliceName
              + " in "
              + dir.root()
              + ": "
              + e.getMessage());
      return 1;
    }
    Thread cleanup =
        new Thread(
            () -> {
              closeQuietly(session, err);
              closeQuietly(slices, err);
            },
            "vnpu-run-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    long startNs = System.nanoTime();
    ExitStatus status;
    try {
      PrintStream diag = new PrintStream(System.err, true);
      ChildSupervisor sup =
          new ChildSupervisor(
              new JvmSignalSource(), new LibcSignalSender(), ChildSupervisor.FORWARDED, diag);
      try {
        status = slices.run(session, lib, node.runtime(), command, environment, sup);
      } catch (CommandLaunchException e) {
        err.println("vnpu run: " + e.getMessage());
        status = e.status();
      }
      double seconds = (System.nanoTime() - startNs) / 1e9;
      // the record as 'vnpu slices resize' may have left it (another process rewrites it)
      SliceRecord shown = session.record();
      try {
        shown = slices.store().read(shown.name()).orElse(shown);
      } catch (IOException unreadable) {
        // the summary keeps the sizes the slice was created with
      }
      err.println(RunSummary.line(shown, status, seconds, session.memory(), session.busyTime()));
      err.flush();
    } finally {
      closeQuietly(session, err);
      closeQuietly(slices, err);
      try {
        Runtime.getRuntime().removeShutdownHook(cleanup);
      } catch (IllegalStateException shuttingDown) {
        // the JVM is exiting: the hook runs anyway and finds the slice already removed
      }
    }
    return status.code();
  }

  /**
   * Removes the slices whose owner is gone (left by a killed {@code vnpu run}), saying which on
   * {@code err}; trouble is reported and does not stop the command.
   */
  static void reapStale(HostSlices slices, PrintWriter err, String command) {
    try {
      List<String> removed = slices.reap();
      if (!removed.isEmpty()) {
        err.println(command + ": removed stale slices (owner gone): " + String.join(", ", removed));
      }
    } catch (IOException | RuntimeException e) {
      err.println(command + ": could not remove stale slices: " + e.getMessage());
    }
    err.flush();
  }

  private static void closeQuietly(SliceSession s, PrintWriter err) {
    try {
      s.close();
    } catch (IOException | RuntimeException e) {
      err.println("vnpu run: could not remove slice " + s.record().name() + ": " + e.getMessage());
      err.flush();
    }
  }

  private static void closeQuietly(HostSlices r, PrintWriter err) {
    try {
      r.close();
    } catch (IOException | RuntimeException e) {
      err.println("vnpu run: could not close the compute registry: " + e.getMessage());
      err.flush();
    }
  }

  /** picocli converter for --memory. */
  static final class SizeConverter implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      String range =
          "'"
              + value
              + "': a size must be larger than 0: write a quantity such as 8Gi or 512Mi,"
              + " or an integer number of MiB";
      MemorySize size;
      try {
        size = MemorySize.parse(value, MemorySize.PlainUnit.MIB);
      } catch (IllegalArgumentException e) {
        // a negative size is a number out of range, not a malformed one: say the range
        throw new TypeConversionException(value.strip().startsWith("-") ? range : e.getMessage());
      }
      if (size.isZero()) throw new TypeConversionException(range);
      return size.bytes();
    }
  }

  /** picocli converter for --device: {@link DeviceRef#parse}. */
  static final class DeviceConverter implements ITypeConverter<DeviceRef> {
    @Override
    public DeviceRef convert(String value) {
      try {
        return DeviceRef.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** picocli converter for --priority. */
  static final class PriorityConverter implements ITypeConverter<Priority> {
    @Override
    public Priority convert(String value) {
      return switch (value.toLowerCase(java.util.Locale.ROOT)) {
        case "high" -> Priority.HIGH;
        case "normal" -> Priority.NORMAL;
        default -> throw new TypeConversionException("'" + value + "': expected high or normal");
      };
    }
  }

  /** picocli converter for --policy: the wire names of {@link SharingPolicy}. */
  static final class SharingPolicyConverter implements ITypeConverter<SharingPolicy> {
    @Override
    public SharingPolicy convert(String value) {
      return SharingPolicy.fromWireName(value)
          .orElseThrow(
              () ->
                  new TypeConversionException(
                      "'" + value + "': expected " + SharingPolicy.wireNames()));
    }
  }
}
