package io.vnpu.benchmarks.quota;

import io.vnpu.api.model.Units;
import io.vnpu.quota.model.RegionConfig;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Region lifecycle as the node agent runs it per container: create (initialise a new file under the
 * init lock), open (map and validate magic, version, geometry, init state) and close.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class RegionLifecycleBenchmark {
  private final QuotaRegions regions = new QuotaRegions();
  private final RegionConfig config = RegionConfig.memoryLimit(2, 16 * Units.GIB);
  private Path dir;
  private Path existing;
  private Path fresh;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("vnpu-bench-");
    existing = dir.resolve("existing");
    fresh = dir.resolve("fresh");
    regions.create(existing, config).close();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    Files.deleteIfExists(existing);
    Files.deleteIfExists(fresh);
    Files.deleteIfExists(dir);
  }

  /** Create + close + delete of a new region file. */
  @Benchmark
  public int createRegion() throws IOException {
    int devices;
    try (QuotaRegion r = regions.create(fresh, config)) {
      devices = r.deviceCount();
    }
    Files.delete(fresh);
    return devices;
  }

  /** Open (validate) + close of an existing region. */
  @Benchmark
  public int openValidateRegion() throws IOException {
    try (QuotaRegion r = regions.open(existing)) {
      return r.deviceCount();
    }
  }
}
