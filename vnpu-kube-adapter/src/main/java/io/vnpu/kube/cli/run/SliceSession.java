package io.vnpu.kube.cli.run;

import io.vnpu.kube.cli.slice.SliceRecord;
import io.vnpu.kube.cli.slice.SliceStore;
import io.vnpu.quota.model.DeviceUsage;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One live slice of this process: its directory and record in the {@link SliceStore} and its quota
 * region, open for usage reads. {@link #close()} removes all of it; it is idempotent and safe to
 * call from a shutdown hook and a {@code finally} at once.
 */
public final class SliceSession implements AutoCloseable {

  private final SliceStore store;
  private final SliceRecord record;
  private final QuotaRegion region;
  private final AtomicBoolean closed = new AtomicBoolean();

  private SliceSession(SliceStore store, SliceRecord record, QuotaRegion region) {
    this.store = store;
    this.record = record;
    this.region = region;
  }

  /**
   * Creates the slice: its directory and record, then its quota region from {@code config}. A
   * stale slice of the same name (its owner died without cleaning up) is removed first. On failure
   * nothing is left behind.
   *
   * @throws java.nio.file.FileAlreadyExistsException when a live slice of that name exists
   * @throws IOException when the region cannot be created
   */
  public static SliceSession create(SliceStore store, QuotaRegions regions, SliceRecord record, RegionConfig config)
      throws IOException {
    try {
      store.create(record);
    } catch (java.nio.file.FileAlreadyExistsException e) {
      java.util.Optional<SliceRecord> old = store.read(record.name());
      if (old.isEmpty() || !SliceStore.ownerGone(old.get())) throw e;
      store.remove(record.name());
      store.create(record);
    }
    try {
      QuotaRegion region = regions.create(store.regionFile(record.name()), config);
      return new SliceSession(store, record, region);
    } catch (IOException | RuntimeException e) {
      try {
        store.remove(record.name());
      } catch (IOException cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
  }

  /** The slice's record. */
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

  /** Compute counters of the slice's device. */
  public ComputeCounters busyTime() throws IOException {
    return ComputeCounters.read(region.file(), 0);
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
      region.close();
    } finally {
      store.remove(record.name());
    }
  }
}
