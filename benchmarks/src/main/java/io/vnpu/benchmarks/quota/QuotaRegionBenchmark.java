package io.vnpu.benchmarks.quota;

import io.vnpu.api.model.Units;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.model.UsageSnapshot;
import io.vnpu.quota.region.MemoryAccount;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The quota region's Java path, the same protocol the C limiter runs on every allocation: admit +
 * release of 4 KiB on one device (publish pending, scan, commit), and a consistent usage snapshot
 * as the node agent's metrics reader takes it.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class QuotaRegionBenchmark {
  private Path dir;
  private QuotaRegion region;
  private MemoryAccount account;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("vnpu-bench-");
    region =
        new QuotaRegions()
            .create(dir.resolve("region"), RegionConfig.memoryLimit(2, 64 * Units.GIB));
    account = region.memoryAccount();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    region.close();
    Files.deleteIfExists(dir.resolve("region"));
    Files.deleteIfExists(dir);
  }

  @Benchmark
  public boolean admitRelease() throws IOException {
    boolean ok = account.admit(0, 4096);
    account.release(0, 4096);
    return ok;
  }

  @Benchmark
  @Threads(2)
  public boolean admitReleaseTwoThreads() throws IOException {
    boolean ok = account.admit(0, 4096);
    account.release(0, 4096);
    return ok;
  }

  @Benchmark
  @Threads(4)
  public boolean admitReleaseFourThreads() throws IOException {
    boolean ok = account.admit(0, 4096);
    account.release(0, 4096);
    return ok;
  }

  /** Snapshot of a region with one slot in use (this JVM's). */
  @Benchmark
  public UsageSnapshot usageSnapshot() throws IOException {
    return region.usage();
  }
}
