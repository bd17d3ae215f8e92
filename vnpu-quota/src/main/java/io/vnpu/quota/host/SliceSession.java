package io.vnpu.quota.host;

import io.vnpu.quota.model.ComputeCounters;
import io.vnpu.quota.model.DeviceUsage;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.registry.ComputeRegistry;
import io.vnpu.quota.registry.RegistryEntry;
import io.vnpu.quota.registry.RegistryMember;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One live slice of this process: its directory and record in the {@link SliceStore} and its quota
 * region, open for usage reads. {@link #close()} removes all of it; it is idempotent and safe to
 * call from a shutdown hook and a {@code finally} at once.
 */
public final class SliceSession implements AutoCloseable {

  private final SliceStore store;
  private volatile SliceRecord record;
  private final QuotaRegion region;
  private final ComputeRegistry registry;
  private final long key;
  private final AtomicBoolean closed = new AtomicBoolean();

  private SliceSession(
      SliceStore store,
      SliceRecord record,
      QuotaRegion region,
      ComputeRegistry registry,
      long key) {
    this.store = store;
    this.record = record;
    this.region = region;
    this.registry = registry;
    this.key = key;
  }

  /**
   * Creates the slice: its directory and record, then its quota region from {@code config}, then
   * its entry in the compute registry of its NPU (key = the region's epoch, as the limiter
   * expects). A stale slice of the same name (its owner died without cleaning up) is removed first.
   * On failure nothing is left behind.
   *
   * @throws java.nio.file.FileAlreadyExistsException when a live slice of that name exists
   * @throws IOException when the region cannot be created
   */
  public static SliceSession create(
      SliceStore store,
      QuotaRegions regions,
      NpuRegistries registries,
      SliceRecord record,
      RegionConfig config)
      throws IOException {
    try {
      store.create(record);
    } catch (java.nio.file.FileAlreadyExistsException e) {
      java.util.Optional<SliceRecord> old = store.read(record.name());
      if (old.isEmpty() || !SliceStore.ownerGone(old.get())) throw e;
      store.remove(record.name());
      store.create(record);
    }
    QuotaRegion region = null;
    try {
      region =
          regions.create(store.regionFile(record.name()), config, io.vnpu.quota.model.SizedBy.HOST);
      long key = region.epoch();
      ComputeRegistry registry = registries.forNpu(Math.max(0, record.phyId()));
      // the region is recorded in the agents' member table: the publisher publishes its usage
      registry.register(
          new RegistryMember(
                  key,
                  registryName(record.name()),
                  record.weight(),
                  record.capPct(),
                  record.priority(),
                  region.file())
              .withPolicy(config.sharingPolicy()));
      return new SliceSession(store, record, region, registry, key);
    } catch (IOException | RuntimeException e) {
      if (region != null) {
        try {
          region.close();
        } catch (IOException cleanup) {
          e.addSuppressed(cleanup);
        }
      }
      try {
        store.remove(record.name());
      } catch (IOException cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
  }

  /**
   * Resizes this live slice ({@link SliceResize} gives the semantics): its region, its
   * compute-registry entry and its record.
   *
   * @return the new record (also {@link #record()} from now on)
   * @throws SliceResizeException when the change does not fit the slice; nothing was changed
   * @throws IOException when the region, registry or record cannot be written
   */
  public synchronized SliceRecord resize(SliceResize change) throws IOException {
    if (closed.get()) throw new SliceResizeException("slice " + record.name() + " is closed");
    record = SliceResizing.applyToSlice(store, record, region, registry, change);
    return record;
  }

  /** The slice's record (with the sizes of the last {@link #resize}). */
  public SliceRecord record() {
    return record;
  }

  /** The quota region file. */
  public Path regionFile() {
    return region.file();
  }

  /** Memory accounting of the slice's device (device 0 of its region). */
  public DeviceUsage memory() throws IOException {
    return region.usage().devices().get(0);
  }

  /**
   * Compute counters of the slice: its compute-registry entry's launches and estimated device time
   * when the limiter joined it, else the region's own counters.
   */
  public ComputeCounters busyTime() throws IOException {
    for (RegistryEntry e : registry.entries()) {
      if (e.key() == key) return new ComputeCounters(e.launches(), e.busyNs());
    }
    return region.computeCounters(0);
  }

  /** The region's epoch: the key of the slice in its NPU's compute registry. */
  public long epoch() {
    return region.epoch();
  }

  /** The slice name cut to the registry's 31 UTF-8 bytes. */
  static String registryName(String name) {
    String n = name;
    while (n.getBytes(StandardCharsets.UTF_8).length > 31) n = n.substring(0, n.length() - 1);
    return n;
  }

  /** The open region. */
  public QuotaRegion region() {
    return region;
  }

  /** Closes the region and removes the slice directory; later calls do nothing. */
  @Override
  public void close() throws IOException {
    if (!closed.compareAndSet(false, true)) return;
    try {
      registry.unregister(key);
    } finally {
      try {
        region.close();
      } finally {
        store.remove(record.name());
      }
    }
  }
}
