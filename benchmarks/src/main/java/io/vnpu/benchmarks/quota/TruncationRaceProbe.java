package io.vnpu.benchmarks.quota;

import io.vnpu.api.model.Units;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.region.RegionBusyException;
import io.vnpu.quota.region.RegionFormatException;
import io.vnpu.quota.region.UsageBuffer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Probe, not a benchmark: what a tenant that truncates its own region while the agent reads it does
 * to the reading thread. A writer thread (the tenant) truncates the region to 0 and extends it
 * back, again and again; a reader thread takes snapshots with {@link
 * QuotaRegion#usage(UsageBuffer)} (compiled by C2 first, as in the agent) and counts the snapshots
 * and the clean {@link RegionFormatException}s ("truncated while mapped"). It reports whether an
 * {@link InternalError} escaped {@code usage} and ended the reader (the JVM reports a fault in
 * compiled code asynchronously, and the size check before the read cannot cover a truncation during
 * it), and whether {@link QuotaRegion#close()} still returns afterwards.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar io.vnpu.benchmarks.quota.TruncationRaceProbe
 * [seconds]}
 */
public final class TruncationRaceProbe {
  private TruncationRaceProbe() {}

  public static void main(String[] args) throws Exception {
    long seconds = args.length > 0 ? Long.parseLong(args[0]) : 3;
    Path dir = Files.createTempDirectory("vnpu-truncation-");
    Path file = dir.resolve("region");
    new QuotaRegions().create(file, RegionConfig.memoryLimit(2, 64 * Units.GIB)).close();
    long full = Files.size(file);
    QuotaRegion region = new QuotaRegions().open(file);
    UsageBuffer buffer = new UsageBuffer();
    for (int i = 0; i < 200_000; i++) region.usage(buffer);
    AtomicBoolean stop = new AtomicBoolean();
    Thread tenant = new Thread(() -> truncateAndExtend(file, full, stop), "tenant");
    AtomicLong snapshots = new AtomicLong();
    AtomicLong clean = new AtomicLong();
    AtomicReference<Throwable> killed = new AtomicReference<>();
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    // the reader as the agent's metrics thread runs it: an error that escapes usage() ends it
    Thread reader =
        new Thread(
            () -> {
              while (System.nanoTime() < end) {
                try {
                  region.usage(buffer);
                  snapshots.incrementAndGet();
                } catch (RegionFormatException e) {
                  clean.incrementAndGet();
                } catch (RegionBusyException e) {
                  throw new IllegalStateException(e); // no admissions here: not expected
                }
                Thread.yield(); // the reader's next step: where a pending fault may surface
              }
            },
            "reader");
    reader.setUncaughtExceptionHandler((t, e) -> killed.set(e));
    tenant.start();
    reader.start();
    reader.join();
    stop.set(true);
    tenant.join();
    // close() unmaps once every pin is released: a pin left held makes it wait for ever
    Thread closer =
        new Thread(
            () -> {
              try {
                region.close();
              } catch (IOException | RuntimeException e) {
                System.out.println("close() failed: " + e);
              }
            },
            "closer");
    closer.setDaemon(true);
    closer.start();
    closer.join(5_000);
    Files.deleteIfExists(file);
    Files.deleteIfExists(dir);
    Throwable k = killed.get();
    System.out.printf(
        "truncation race, %d s: snapshots %d, clean errors %d, reader %s, close() %s%n",
        seconds,
        snapshots.get(),
        clean.get(),
        k == null
            ? "ran to the end"
            : "killed by "
                + k
                + " at "
                + (k.getStackTrace().length > 0 ? k.getStackTrace()[0] : "?"),
        closer.isAlive() ? "still blocked after 5 s (a pin was never released)" : "returned");
  }

  private static void truncateAndExtend(Path file, long full, AtomicBoolean stop) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      while (!stop.get()) {
        ch.truncate(0);
        LockSupport.parkNanos(2_000);
        ch.write(ByteBuffer.allocate(1), full - 1);
        LockSupport.parkNanos(2_000);
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
