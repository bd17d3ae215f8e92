package io.vnpu.kube.cli.top;

import io.vnpu.quota.host.NpuRegistries;
import io.vnpu.quota.host.SliceRecord;
import io.vnpu.quota.host.SliceStore;
import io.vnpu.quota.model.DeviceUsage;
import io.vnpu.quota.model.ProcessUsage;
import io.vnpu.quota.model.UsageSnapshot;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.registry.ComputeRegistries;
import io.vnpu.quota.registry.ComputeRegistry;
import io.vnpu.quota.registry.RegistryEntry;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Reads every slice of a {@link SliceStore} into a {@link HostSnapshot}: the record, the region's
 * memory accounting and processes, and the AI-core share since the previous scan (from the slice's
 * entry in its NPU's compute registry, else the region's compute counters), then the Kubernetes
 * soft slices of {@link KubeSliceScanner}. A slice that vanishes or is half-created during the scan
 * is skipped; a broken one is reported once per scan on {@code err} and skipped.
 */
public final class HostScanner {

  private final SliceStore store;
  private final QuotaRegions regions;
  private final boolean simulated;
  private final Clock clock;
  private final LongSupplier nanoClock;
  private final PrintWriter err;
  private final ShareMeter meter = new ShareMeter();
  private final KubeSliceScanner kube;

  /**
   * @param kube the Kubernetes slices shown beside the {@code vnpu run} ones
   */
  public HostScanner(
      SliceStore store,
      QuotaRegions regions,
      boolean simulated,
      Clock clock,
      LongSupplier nanoClock,
      PrintWriter err,
      KubeSliceScanner kube) {
    this.kube = java.util.Objects.requireNonNull(kube, "kube");
    this.store = store;
    this.regions = regions;
    this.simulated = simulated;
    this.clock = clock;
    this.nanoClock = nanoClock;
    this.err = err;
  }

  /** One scan. */
  public HostSnapshot scan() throws IOException {
    List<SliceStatus> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    Map<Integer, Map<Long, Long>> busyByNpu = new HashMap<>();
    for (String name : store.names()) {
      try {
        Optional<SliceStatus> s = read(name, busyByNpu);
        s.ifPresent(out::add);
        if (s.isPresent()) seen.add(name);
      } catch (NoSuchFileException gone) {
        // removed between listing and reading: its run ended
      } catch (IOException | RuntimeException | InternalError e) {
        // InternalError: its region truncated while read (see SliceCollector)
        err.println("vnpu top: skipping slice " + name + ": " + e.getMessage());
      }
    }
    meter.retainOnly(seen);
    out.addAll(kube.scan());
    out.sort(Comparator.comparingInt(SliceStatus::logicId).thenComparing(SliceStatus::name));
    return new HostSnapshot(
        clock.instant(), store.stateDir().root().toString(), simulated, TargetShares.apply(out));
  }

  private Optional<SliceStatus> read(String name, Map<Integer, Map<Long, Long>> busyByNpu)
      throws IOException {
    Optional<SliceRecord> rec = store.read(name);
    if (rec.isEmpty()) return Optional.empty();
    SliceRecord r = rec.get();
    UsageSnapshot usage;
    long epoch;
    long regionBusy;
    try (QuotaRegion region = regions.open(store.regionFile(name))) {
      usage = region.usage();
      epoch = region.epoch();
      regionBusy = region.computeCounters(0).busyNs();
    }
    Map<Long, Long> registered =
        busyByNpu.computeIfAbsent(Math.max(0, r.phyId()), this::registryBusy);
    Long busy = registered.get(epoch);
    if (busy == null) busy = regionBusy;
    Double achieved = meter.record(name, busy, nanoClock.getAsLong());
    DeviceUsage dev = usage.devices().get(0);
    List<ProcessStatus> procs = new ArrayList<>();
    for (ProcessUsage p : usage.processes()) {
      procs.add(
          new ProcessStatus(
              p.pid(), p.usedBytes().isEmpty() ? 0 : p.usedBytes().get(0), commandOf(p.pid())));
    }
    procs.sort(Comparator.comparingInt(ProcessStatus::pid));
    return Optional.of(
        new SliceStatus(
            r.name(),
            r.logicId(),
            dev.usedBytes(),
            dev.limitBytes(),
            dev.peakBytes(),
            dev.oomRejections(),
            r.weight(),
            r.capPct(),
            r.priority(),
            0,
            achieved,
            r.ownerPid(),
            SliceStore.ownerGone(r),
            procs));
  }

  /** Estimated device time per registry key on one NPU; empty when it has no readable registry. */
  private Map<Long, Long> registryBusy(int phyId) {
    Map<Long, Long> busy = new HashMap<>();
    java.nio.file.Path f = NpuRegistries.file(store.stateDir().registry(), phyId);
    if (!Files.exists(f)) return busy;
    try (ComputeRegistry reg = new ComputeRegistries().open(f)) {
      for (RegistryEntry e : reg.entries()) busy.put(e.key(), e.busyNs());
    } catch (IOException | RuntimeException e) {
      err.println(
          "vnpu top: compute registry "
              + f
              + " unreadable, using region counters: "
              + e.getMessage());
    }
    return busy;
  }

  private static String commandOf(int pid) {
    return ProcessHandle.of(pid).flatMap(h -> h.info().commandLine()).orElse("");
  }
}
