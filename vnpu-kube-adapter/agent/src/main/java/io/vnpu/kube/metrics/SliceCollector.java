package io.vnpu.kube.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.vnpu.api.model.Units;
import io.vnpu.kube.observe.ChargedRegion;
import io.vnpu.kube.observe.SliceRef;
import io.vnpu.kube.observe.SliceSource;
import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.DeviceUsage;
import io.vnpu.quota.model.PolicyFlag;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.model.UsageSnapshot;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.registry.ComputeRegistries;
import io.vnpu.quota.registry.ComputeRegistry;
import io.vnpu.quota.registry.RegistryEntry;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-slice series, read at every scrape from each slice's quota region and, for AI-core shares,
 * from the compute registry of each NPU (vnpu-quota's public read API). Labels: {@code node,
 * namespace, pod, container, device_index} (index of the device inside the slice), {@code
 * npu_uuid}, {@code phy_id}.
 *
 * <p>The region is its container's to rewrite: only the usage (memory used, peak, 207001 count,
 * attached processes) is read there, the container's own figures. What the slice was charged (the
 * memory limit, and the devices' phy IDs and UUIDs, the region's registry key and registry
 * directory that pick its compute entries) comes from the agent's record of the region it created
 * ({@link SliceRef#charged()}). Where the region disagrees with the record, the record is reported,
 * {@code vnpu_slice_region_mismatch{field}} says which field disagrees, and a warning names the
 * slice and the field (once while it lasts). A region the limiter made itself (HAMi with upstream
 * hami-vnpu-core) has a record of what was charged ({@link ChargedRegion#limiterMade}): its limits
 * and labels come from there, but it gets no compute series. A slice without a record gets no limit
 * and no compute series.
 *
 * <ul>
 *   <li>{@code vnpu_slice_memory_limit_bytes} (absent when unlimited), {@code
 *       vnpu_slice_memory_used_bytes}, {@code vnpu_slice_memory_peak_bytes}, {@code
 *       vnpu_slice_oom_rejections_total} (allocations refused with 207001)
 *   <li>{@code vnpu_slice_processes}: processes attached to the region (the limiter is loaded in
 *       them); labels without the device
 *   <li>{@code vnpu_slice_aicore_target_ratio}: the share the limiter currently grants the slice
 *       ({@code share_ppm}); {@code vnpu_slice_aicore_busy_seconds_total}: estimated device time,
 *       whose {@code rate()} is the achieved share; {@code vnpu_slice_aicore_achieved_ratio}: that
 *       rate between the last two scrapes; {@code vnpu_slice_kernel_launches_total}, {@code
 *       vnpu_slice_throttled_seconds_total}. Absent while the slice has no registry entry.
 * </ul>
 */
public final class SliceCollector implements MultiCollector {
  private static final Logger LOG = LoggerFactory.getLogger(SliceCollector.class);

  private record Busy(long busyNs, long atNs) {}

  private final String node;
  private final SliceSource source;
  private final Function<String, Optional<Path>> registryHostDir;
  private final Set<CompatNames> compat;
  private final LongSupplier nanoClock;
  private final Map<String, Busy> lastBusy = new HashMap<>();
  private final Set<Path> refused = new HashSet<>();

  /** {@code region#field} of the mismatches already warned about (until they end). */
  private final Set<String> warnedMismatch = new HashSet<>();

  /** Regions without a charge record already warned about. */
  private final Set<Path> warnedUnrecorded = new HashSet<>();

  /**
   * Every region and registry is opened non-blocking: a tenant's lease or FIFO fails that slice at
   * once.
   */
  private final io.vnpu.quota.files.TenantFiles tenantFiles = new io.vnpu.quota.files.TenantFiles();

  /**
   * @param registryHostDir maps the registry directory a region names (as the container sees it,
   *     e.g. {@code /hami-shared-region}) to its host path; empty when unknown
   * @param nanoClock monotonic clock in ns ({@code System::nanoTime})
   */
  public SliceCollector(
      String node,
      SliceSource source,
      Function<String, Optional<Path>> registryHostDir,
      Set<CompatNames> compat,
      LongSupplier nanoClock) {
    this.node = Objects.requireNonNull(node, "node");
    this.source = Objects.requireNonNull(source, "source");
    this.registryHostDir = Objects.requireNonNull(registryHostDir, "registryHostDir");
    this.compat = Set.copyOf(compat);
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
  }

  @Override
  public synchronized MetricSnapshots collect() {
    Families f =
        new Families()
            .gauge(
                "vnpu_slice_memory_limit_bytes", "HBM limit of the slice on the device in bytes.")
            .gauge(
                "vnpu_slice_memory_used_bytes",
                "HBM the slice's processes hold on the device in bytes.")
            .gauge(
                "vnpu_slice_memory_peak_bytes",
                "Highest HBM use of the slice on the device in bytes.")
            .counter(
                "vnpu_slice_oom_rejections",
                "Allocations refused with 207001 (over the slice's limit).")
            .gauge(
                "vnpu_slice_region_mismatch",
                "Devices (1 for a slice-wide field) whose quota region disagrees in this field with"
                    + " what the agent created it with; the agent reports its own record.")
            .gauge(
                "vnpu_slice_processes",
                "Processes attached to the slice's quota region (limiter loaded).")
            .gauge(
                "vnpu_slice_aicore_target_ratio",
                "AI-core share the limiter grants the slice now, 0..1.")
            .gauge(
                "vnpu_slice_aicore_achieved_ratio",
                "AI-core share the slice achieved between the last two scrapes.")
            .counter(
                "vnpu_slice_aicore_busy_seconds",
                "Estimated AI-core time of the slice's kernels in seconds.")
            .counter("vnpu_slice_kernel_launches", "Kernel launches the limiter saw for the slice.")
            .counter(
                "vnpu_slice_throttled_seconds",
                "Time the slice's launches waited in the limiter in seconds.")
            .gauge(
                "hami_vgpu_memory_used_bytes",
                "HAMi name: device memory the container uses in bytes.")
            .gauge(
                "hami_vgpu_memory_limit_bytes",
                "HAMi name: device memory limit of the container in bytes.")
            .gauge(
                "hami_container_device_utilization_ratio",
                "HAMi name: device core share the container achieved.")
            .gauge("vnpu_pod_used_memory", "npu-exporter name: HBM the container uses in MiB.")
            .gauge("vnpu_pod_total_memory", "npu-exporter name: HBM limit of the container in MiB.")
            .gauge(
                "vnpu_pod_aicore_utilization",
                "npu-exporter name: AI-core share the container achieved in percent.");
    Map<String, List<RegistryEntry>> registries = new HashMap<>();
    Set<String> seen = new HashSet<>();
    Set<String> mismatches = new HashSet<>();
    Set<Path> unrecorded = new HashSet<>();
    long now = nanoClock.getAsLong();
    for (SliceRef s : source.slices()) {
      try {
        read(s, f, registries, seen, mismatches, unrecorded, now);
      } catch (NoSuchFileException gone) {
        // the container ended between listing and reading: no series
      } catch (io.vnpu.quota.files.TenantFileException e) {
        // leased, a link, a FIFO...: an error for this slice only, never a wait (logged once per
        // file)
        if (refused.add(e.file()))
          LOG.warn(
              "metrics: slice {}/{}/{} skipped: {}",
              s.namespace(),
              s.pod(),
              s.container(),
              e.getMessage());
      } catch (IOException | RuntimeException | InternalError e) {
        // InternalError: a fault in a region its tenant truncated while it was read, which compiled
        // code reports late (it may even surface here for the slice read before): one slice's
        // series are missing from this scrape, never the scrape
        LOG.debug(
            "metrics: slice {}/{}/{} skipped: {}",
            s.namespace(),
            s.pod(),
            s.container(),
            e.getMessage());
      }
    }
    lastBusy.keySet().retainAll(seen);
    warnedMismatch.retainAll(mismatches);
    warnedUnrecorded.retainAll(unrecorded);
    return f.build();
  }

  private void read(
      SliceRef s,
      Families f,
      Map<String, List<RegistryEntry>> registries,
      Set<String> seen,
      Set<String> mismatches,
      Set<Path> unrecorded,
      long now)
      throws IOException {
    RegionConfig inRegion;
    UsageSnapshot usage;
    long epoch;
    try (QuotaRegion r = new QuotaRegions(tenantFiles).open(s.region())) {
      inRegion = r.readConfig();
      usage = r.usage();
      epoch = r.epoch();
    }
    Labels slice =
        Labels.of(
            "node", node, "namespace", s.namespace(), "pod", s.pod(), "container", s.container());
    f.add("vnpu_slice_processes", usage.processes().size(), slice);
    if (s.charged().isEmpty()) {
      unrecorded.add(s.region());
      if (warnedUnrecorded.add(s.region()))
        LOG.info(
            "metrics: slice {}/{}/{}: the agent keeps no record of its quota region {}: usage"
                + " only, no limit or compute series",
            s.namespace(),
            s.pod(),
            s.container(),
            s.region());
      // the region's own devices label the container's own usage; nothing else is taken from it
      for (int d = 0; d < usage.devices().size() && d < inRegion.devices().size(); d++) {
        addUsage(s, f, inRegion.devices().get(d), d, usage.devices().get(d), false);
      }
      return;
    }
    ChargedRegion charged = s.charged().get();
    RegionConfig config = charged.config();
    compare(s, charged, inRegion, usage, epoch, f, slice, mismatches);
    // a region the limiter made has the limiter's own registry entries (upstream: in a directory
    // its containers write): no compute series from them
    boolean compute =
        charged.key().isPresent() && config.policy().contains(PolicyFlag.COMPUTE_ENFORCE);
    for (int d = 0; d < config.devices().size(); d++) {
      DeviceQuota q = config.devices().get(d);
      if (d >= usage.devices().size()) continue; // a region cut short: no usage to show
      Labels own = addUsage(s, f, q, d, usage.devices().get(d), true);
      if (!compute || q.physId() < 0) continue;
      Optional<RegistryEntry> entry =
          registryEntries(config.registryDir(), q.physId(), registries).stream()
              .filter(x -> x.key() == charged.key().getAsLong())
              .findFirst();
      if (entry.isEmpty()) continue;
      RegistryEntry x = entry.get();
      f.add("vnpu_slice_aicore_target_ratio", x.sharePpm() / 1e6, own);
      f.add("vnpu_slice_aicore_busy_seconds", x.busyNs() / 1e9, own);
      f.add("vnpu_slice_kernel_launches", x.launches(), own);
      f.add("vnpu_slice_throttled_seconds", x.throttledNs() / 1e9, own);
      String key = s.region() + "#" + d + "#" + x.index();
      seen.add(key);
      Busy before = lastBusy.put(key, new Busy(x.busyNs(), now));
      if (before != null && now > before.atNs() && x.busyNs() >= before.busyNs()) {
        double achieved = (double) (x.busyNs() - before.busyNs()) / (now - before.atNs());
        f.add("vnpu_slice_aicore_achieved_ratio", achieved, own);
        if (compat.contains(CompatNames.HAMI))
          f.add("hami_container_device_utilization_ratio", achieved, hamiLabels(s, d, q));
        if (compat.contains(CompatNames.NPU_EXPORTER))
          f.add("vnpu_pod_aicore_utilization", achieved * 100, exporterLabels(s, q));
      }
    }
  }

  /**
   * The memory series of device {@code d}: usage from the region, the limit (when {@code
   * withLimit}) from {@code q}, labelled by {@code q}.
   *
   * @return the own labels of the device
   */
  private Labels addUsage(
      SliceRef s, Families f, DeviceQuota q, int d, DeviceUsage u, boolean withLimit) {
    Labels own =
        Labels.of(
            "node",
            node,
            "namespace",
            s.namespace(),
            "pod",
            s.pod(),
            "container",
            s.container(),
            "device_index",
            Integer.toString(d),
            "npu_uuid",
            q.uuid(),
            "phy_id",
            Integer.toString(q.physId()));
    boolean hami = compat.contains(CompatNames.HAMI);
    boolean exporter = compat.contains(CompatNames.NPU_EXPORTER);
    Labels h = hamiLabels(s, d, q);
    Labels e = exporterLabels(s, q);
    if (withLimit && q.memLimitBytes() != 0) {
      f.add("vnpu_slice_memory_limit_bytes", q.memLimitBytes(), own);
      if (hami) f.add("hami_vgpu_memory_limit_bytes", q.memLimitBytes(), h);
      if (exporter) f.add("vnpu_pod_total_memory", (double) q.memLimitBytes() / Units.MIB, e);
    }
    f.add("vnpu_slice_memory_used_bytes", u.usedBytes(), own);
    f.add("vnpu_slice_memory_peak_bytes", u.peakBytes(), own);
    f.add("vnpu_slice_oom_rejections", u.oomRejections(), own);
    if (hami) f.add("hami_vgpu_memory_used_bytes", u.usedBytes(), h);
    if (exporter) f.add("vnpu_pod_used_memory", (double) u.usedBytes() / Units.MIB, e);
    return own;
  }

  private static Labels hamiLabels(SliceRef s, int d, DeviceQuota q) {
    return Labels.of(
        "namespace",
        s.namespace(),
        "pod",
        s.pod(),
        "container",
        s.container(),
        "vdevice_index",
        Integer.toString(d),
        "device_uuid",
        q.uuid());
  }

  private static Labels exporterLabels(SliceRef s, DeviceQuota q) {
    return Labels.of(
        "id",
        Integer.toString(q.physId()),
        "vdie_id",
        q.uuid(),
        "namespace",
        s.namespace(),
        "pod_name",
        s.pod(),
        "container_name",
        s.container());
  }

  /**
   * Adds {@code vnpu_slice_region_mismatch} for each field in which the region disagrees with the
   * agent's record, and warns once per slice and field while it lasts.
   */
  private void compare(
      SliceRef s,
      ChargedRegion charged,
      RegionConfig inRegion,
      UsageSnapshot usage,
      long epoch,
      Families f,
      Labels slice,
      Set<String> mismatches) {
    Map<String, Integer> fields = charged.disagreements(inRegion, usage, epoch);
    for (Map.Entry<String, Integer> m : fields.entrySet()) {
      f.add("vnpu_slice_region_mismatch", m.getValue(), slice.add("field", m.getKey()));
      String key = s.region() + "#" + m.getKey();
      mismatches.add(key);
      if (warnedMismatch.add(key))
        LOG.warn(
            "metrics: slice {}/{}/{}: its quota region {} disagrees with what the agent created it"
                + " with in field {} ({} device(s)); the agent's record is reported",
            s.namespace(),
            s.pod(),
            s.container(),
            s.region(),
            m.getKey(),
            m.getValue());
    }
  }

  private List<RegistryEntry> registryEntries(
      String registryDir, int phyId, Map<String, List<RegistryEntry>> cache) {
    Optional<Path> dir = registryHostDir.apply(registryDir);
    if (dir.isEmpty()) return List.of();
    Path file = dir.get().resolve(ComputeRegistries.fileName(phyId));
    return cache.computeIfAbsent(
        file.toString(),
        k -> {
          try (ComputeRegistry r = new ComputeRegistries(tenantFiles).open(file)) {
            return r.entries();
          } catch (NoSuchFileException e) {
            return List.of(); // no process launched a kernel on this NPU yet
          } catch (IOException | RuntimeException e) {
            LOG.debug("metrics: registry {} unreadable: {}", file, e.getMessage());
            return List.of();
          }
        });
  }
}
