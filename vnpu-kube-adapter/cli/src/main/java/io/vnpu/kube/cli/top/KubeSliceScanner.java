package io.vnpu.kube.cli.top;

import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.observe.ChargedRegion;
import io.vnpu.kube.softslice.ChargeRecords;
import io.vnpu.quota.host.NpuRegistries;
import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.DeviceUsage;
import io.vnpu.quota.model.ProcessUsage;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.model.UsageSnapshot;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.registry.ComputeRegistries;
import io.vnpu.quota.registry.ComputeRegistry;
import io.vnpu.quota.registry.RegistryEntry;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * Reads the Kubernetes soft slices of this host for {@code vnpu top}: the slices the node agents
 * made with the one soft-slice mechanism ({@code io.vnpu.kube.softslice}) under their data
 * directories, HAMi soft split ({@code HOOK_PATH}: {@code containers/} and {@code registry/}), DRA
 * soft shares and MindCluster soft share ({@code <data dir>}: {@code regions/} and {@code
 * compute/}).
 *
 * <p>One {@link SliceStatus} per device of a slice. Name, weight, cap and priority are the registry
 * entry's (written by the node agent, {@code namespace/pod/container} or {@code
 * namespace/claim/request}, cut to 31 bytes), memory use and processes the region's. The devices,
 * memory limits and registry key are the agent's record of the region it created ({@link
 * ChargeRecords}), never the region's, which its container rewrites; where they disagree, that is
 * said once on {@code err}; a region the limiter made itself has a record of its charge and no
 * registry entry of the agent's, so its weight, cap and priority are the record's too. Only a
 * region without a readable record (a user who may not read the agent's records, or the limiter's
 * region of an agent that kept none) shows its own configuration. A slice without a registry entry
 * (memory only) is named by its directory. A region's PIDs are in its container's PID namespace: no
 * command is shown. Nothing is created, locked or changed: regions are opened as the agents'
 * metrics open them (non-blocking, a FIFO or link in place of a region is skipped and reported).
 */
public final class KubeSliceScanner {
  /**
   * HAMi's {@code HOOK_PATH} of this project's agent ({@code SoftSplitLayout.DEFAULT_HOOK_PATH}).
   */
  public static final Path DEFAULT_HAMI_DIR = Path.of("/var/lib/vnpu/hami");

  /** The DRA driver's data directory for driver {@code npu.huawei.com}. */
  public static final Path DEFAULT_DRA_DIR = Path.of("/var/lib/kubelet/plugins/npu.huawei.com");

  private final List<Path> dataDirs;
  private final Map<Integer, Integer> logicByPhy;
  private final QuotaRegions regions;
  private final LongSupplier nanoClock;
  private final PrintWriter err;
  private final ShareMeter meter = new ShareMeter();

  /**
   * Roots already reported unlistable (a user without root on a node): said once, not every
   * refresh.
   */
  private final Set<Path> unlistable = new java.util.HashSet<>();

  /** Slices whose region disagreement or unreadable record was already said, with what was said. */
  private final Map<Path, String> told = new HashMap<>();

  /**
   * @param dataDirs node-agent data directories (HAMi {@code HOOK_PATH}, DRA or MindCluster data
   *     directory); one that does not exist is skipped
   * @param logicByPhy DCMI logic ID of each phy ID (a phy ID missing here is shown as its own)
   */
  public KubeSliceScanner(
      List<Path> dataDirs,
      Map<Integer, Integer> logicByPhy,
      QuotaRegions regions,
      LongSupplier nanoClock,
      PrintWriter err) {
    this.dataDirs = List.copyOf(dataDirs);
    this.logicByPhy = Map.copyOf(logicByPhy);
    this.regions = Objects.requireNonNull(regions, "regions");
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    this.err = Objects.requireNonNull(err, "err");
  }

  /** Where a data directory keeps its slices and registries; empty when it holds neither layout. */
  record Roots(Path regionRoot, Path registryDir) {
    static Optional<Roots> of(Path dataDir) {
      if (Files.isDirectory(dataDir.resolve("regions"), LinkOption.NOFOLLOW_LINKS)) {
        return Optional.of(new Roots(dataDir.resolve("regions"), dataDir.resolve("compute")));
      }
      if (Files.isDirectory(dataDir.resolve("containers"), LinkOption.NOFOLLOW_LINKS)) {
        return Optional.of(new Roots(dataDir.resolve("containers"), dataDir.resolve("registry")));
      }
      return Optional.empty();
    }
  }

  /** One scan: the slices of every data directory, unordered, target shares not yet applied. */
  public List<SliceStatus> scan() {
    List<SliceStatus> out = new ArrayList<>();
    Set<String> seen = new TreeSet<>();
    for (Path dataDir : dataDirs) {
      Optional<Roots> roots = Roots.of(dataDir);
      if (roots.isEmpty()) continue;
      Map<Integer, Map<Long, RegistryEntry>> entries = new HashMap<>();
      for (Path dir : list(roots.get().regionRoot())) {
        Path region = dir.resolve(LimiterFiles.REGION_FILE);
        if (!Files.isRegularFile(region, LinkOption.NOFOLLOW_LINKS)) continue;
        try {
          out.addAll(
              read(
                  dir,
                  region,
                  charged(roots.get().regionRoot(), dir),
                  roots.get().registryDir(),
                  entries,
                  seen));
        } catch (NoSuchFileException gone) {
          // removed between listing and reading: its pod or claim is gone
        } catch (IOException | RuntimeException | InternalError e) {
          // InternalError: its region truncated while read (see SliceCollector)
          err.println("vnpu top: skipping Kubernetes slice " + dir + ": " + e.getMessage());
        }
      }
    }
    meter.retainOnly(seen);
    return out;
  }

  /** The agent's record of the slice in {@code dir}; empty (said once) when it cannot be read. */
  private Optional<ChargedRegion> charged(Path regionRoot, Path dir) {
    try {
      return new ChargeRecords(regionRoot).read(dir.getFileName().toString());
    } catch (IOException | RuntimeException e) {
      tell(
          dir,
          "vnpu top: Kubernetes slice "
              + dir
              + ": the agent's record is unreadable ("
              + e.getMessage()
              + "); showing its region's own configuration, which its container may have changed");
      return Optional.empty();
    }
  }

  private void tell(Path dir, String line) {
    if (!line.equals(told.put(dir, line))) err.println(line);
  }

  private List<SliceStatus> read(
      Path dir,
      Path regionFile,
      Optional<ChargedRegion> charged,
      Path registryDir,
      Map<Integer, Map<Long, RegistryEntry>> entries,
      Set<String> seen)
      throws IOException {
    RegionConfig inRegion;
    UsageSnapshot usage;
    long epoch;
    try (QuotaRegion region = regions.open(regionFile)) {
      inRegion = region.readConfig();
      usage = region.usage();
      epoch = region.epoch();
    }
    RegionConfig config = charged.map(ChargedRegion::config).orElse(inRegion);
    if (charged.isPresent()) {
      Map<String, Integer> off = charged.get().disagreements(inRegion, usage, epoch);
      epoch = charged.get().key().orElse(0); // the key its registry entries have
      if (!off.isEmpty())
        tell(
            dir,
            "vnpu top: Kubernetes slice "
                + dir
                + ": its quota region disagrees with the agent's record in "
                + String.join(", ", off.keySet())
                + "; showing the record");
    }
    List<SliceStatus> out = new ArrayList<>();
    int n = config.devices().size();
    for (int i = 0; i < n; i++) {
      DeviceQuota q = config.devices().get(i);
      int phy = Math.max(0, q.physId());
      // a region the limiter made has no entry of the agent's (what the limiter registers is its
      // own, not a charge): the record's weight and cap are shown
      boolean limiterMade = charged.isPresent() && charged.get().key().isEmpty();
      RegistryEntry e =
          limiterMade
              ? null
              : entries.computeIfAbsent(phy, p -> registry(registryDir, p)).get(epoch);
      String base = e != null && !e.name().isEmpty() ? e.name() : dir.getFileName().toString();
      String name = n == 1 ? base : base + "#" + i;
      String meterKey = dir + "#" + i;
      seen.add(meterKey);
      Double achieved =
          e == null ? null : meter.record(meterKey, e.busyNs(), nanoClock.getAsLong());
      DeviceUsage dev = i < usage.devices().size() ? usage.devices().get(i) : null;
      List<ProcessStatus> procs = new ArrayList<>();
      for (ProcessUsage p : usage.processes()) {
        procs.add(
            new ProcessStatus(p.pid(), i < p.usedBytes().size() ? p.usedBytes().get(i) : 0, ""));
      }
      out.add(
          new SliceStatus(
              name,
              logicByPhy.getOrDefault(phy, phy),
              dev == null ? 0 : dev.usedBytes(),
              dev == null || charged.isPresent() ? q.memLimitBytes() : dev.limitBytes(),
              dev == null ? 0 : dev.peakBytes(),
              dev == null ? 0 : dev.oomRejections(),
              e != null ? e.weight() : q.computeWeight(),
              e != null ? e.capPct() : q.computeCapPct(),
              e != null ? e.priority() : q.priority(),
              0,
              achieved,
              0,
              false,
              procs));
    }
    return out;
  }

  /** The entries of one NPU's registry by key; empty when it has none or it cannot be read. */
  private Map<Long, RegistryEntry> registry(Path registryDir, int phy) {
    Map<Long, RegistryEntry> out = new HashMap<>();
    Path f = NpuRegistries.file(registryDir, phy);
    if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) return out;
    try (ComputeRegistry reg = new ComputeRegistries().open(f)) {
      for (RegistryEntry e : reg.entries()) out.put(e.key(), e);
    } catch (IOException | RuntimeException e) {
      err.println(
          "vnpu top: compute registry "
              + f
              + " unreadable, showing the regions' own configuration: "
              + e.getMessage());
    }
    return out;
  }

  private List<Path> list(Path root) {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(root)) {
      for (Path p : ds) out.add(p);
    } catch (NoSuchFileException gone) {
      return out;
    } catch (IOException e) {
      if (unlistable.add(root)) {
        err.println(
            "vnpu top: cannot list "
                + root
                + " ("
                + e.getMessage()
                + "); its Kubernetes slices are not shown");
      }
    }
    out.sort(null);
    return out;
  }
}
