package io.vnpu.benchmarks.quota;

import io.vnpu.api.model.Units;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.MemoryAccount;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The same admit + release of 4 KiB as {@code QuotaRegionBenchmark.admitRelease}, timed in the
 * thread's CPU time instead of wall time: on a machine shared with other work (load average far
 * above the CPU count) the wall-time figure mostly measures the time the thread waited for a CPU,
 * the CPU-time one only the time it ran. For comparing two builds on such a machine (run each a few
 * times, alternating); the JMH row on a quiet machine is the figure of record.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.vnpu.benchmarks.quota.AdmitReleaseCpuTime</pre>
 *
 * Prints the best of 10 measured rounds of 2,000,000 pairs (after 5 warm-up rounds), in CPU ns per
 * pair.
 */
public final class AdmitReleaseCpuTime {
  private static final int WARMUP_ROUNDS = 5;
  private static final int ROUNDS = 15;
  private static final long PAIRS = 2_000_000;

  private AdmitReleaseCpuTime() {}

  public static void main(String[] args) throws IOException {
    Path dir = Files.createTempDirectory("vnpu-cpu-bench-");
    Path file = dir.resolve("region");
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    double best = Double.MAX_VALUE;
    try (QuotaRegion region =
        new QuotaRegions().create(file, RegionConfig.memoryLimit(2, 64 * Units.GIB))) {
      MemoryAccount account = region.memoryAccount();
      for (int round = 0; round < ROUNDS; round++) {
        long t0 = threads.getCurrentThreadCpuTime();
        boolean all = true;
        for (long i = 0; i < PAIRS; i++) {
          all &= account.admit(0, 4096);
          account.release(0, 4096);
        }
        long t1 = threads.getCurrentThreadCpuTime();
        if (!all) throw new IllegalStateException("an admission under a 64 GiB limit was refused");
        if (round >= WARMUP_ROUNDS) best = Math.min(best, (t1 - t0) / (double) PAIRS);
      }
    } finally {
      Files.deleteIfExists(file);
      Files.deleteIfExists(dir);
    }
    System.out.printf(
        "admit+release, 4 KiB, 1 thread: %.1f CPU ns per pair (best of %d rounds of %d)%n",
        best, ROUNDS - WARMUP_ROUNDS, PAIRS);
  }
}
