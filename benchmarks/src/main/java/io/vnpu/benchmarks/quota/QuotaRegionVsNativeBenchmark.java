package io.vnpu.benchmarks.quota;

import io.vnpu.api.model.Units;
import io.vnpu.quota.model.RegionConfig;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Java admit + release of 4 KiB while a C process runs the limiter's own region code on the same
 * region and device, admitting and releasing random sizes (up to 1 MiB) as fast as it can ({@code
 * native/build/limiter/region_client churn}). The native build directory comes from {@code
 * VNPU_NATIVE_DIR}, else the system property {@code vnpu.native.dir}, else {@code native/build}
 * under the working directory.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class QuotaRegionVsNativeBenchmark {
  private Path dir;
  private QuotaRegion region;
  private MemoryAccount account;
  private Process hammer;

  static Path nativeDir() {
    String env = System.getenv("VNPU_NATIVE_DIR");
    if (env != null && !env.isBlank()) return Path.of(env);
    String prop = System.getProperty("vnpu.native.dir");
    if (prop != null && !prop.isBlank()) return Path.of(prop);
    return Path.of("native", "build");
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException, InterruptedException {
    Path client = nativeDir().resolve("limiter").resolve("region_client");
    if (!Files.isExecutable(client)) {
      throw new IllegalStateException(
          client + " not found: build native/ (make -C native) or set VNPU_NATIVE_DIR");
    }
    dir = Files.createTempDirectory("vnpu-bench-");
    Path file = dir.resolve("region");
    region = new QuotaRegions().create(file, RegionConfig.memoryLimit(1, 64 * Units.GIB));
    account = region.memoryAccount();
    hammer =
        new ProcessBuilder(
                client.toString(),
                file.toString(),
                "churn",
                "0",
                "3600000",
                "7",
                String.valueOf(Units.MIB))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    // the C process has claimed its slot once a second slot shows up in the region
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (region.usage().processes().size() < 2) {
      if (!hammer.isAlive())
        throw new IllegalStateException("region_client exited with " + hammer.exitValue());
      if (System.nanoTime() > deadline)
        throw new IllegalStateException("region_client did not claim a slot in 10 s");
      Thread.sleep(5);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException, InterruptedException {
    hammer.destroy();
    if (!hammer.waitFor(5, TimeUnit.SECONDS)) hammer.destroyForcibly().waitFor();
    region.close();
    Files.deleteIfExists(dir.resolve("region"));
    Files.deleteIfExists(dir);
  }

  @Benchmark
  public boolean admitReleaseAgainstNativeProcess() throws IOException {
    boolean ok = account.admit(0, 4096);
    account.release(0, 4096);
    return ok;
  }
}
