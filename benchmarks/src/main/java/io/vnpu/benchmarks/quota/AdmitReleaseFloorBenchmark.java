package io.vnpu.benchmarks.quota;

import io.vnpu.quota.mapped.SharedMemory;
import io.vnpu.quota.mapped.UncheckedWords;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * Floor, not an API: the five atomics of {@code QuotaRegionBenchmark.admitRelease} alone, on a
 * mapping of a file of its own that no other process maps, one cache line per word as in the region
 * (a slot's pending and used bytes and the device's commit sequence lie on three lines there too).
 * No slot scan, no limit or policy read, no check: what admit + release cannot cost less than on
 * this machine (the C side's equivalent is {@code alloc_free_atomics_floor_ns},
 * docs/benchmarks.md).
 *
 * <p>The sequence is the one of {@code MemoryAccount}: {@code pending += n}, {@code commit_seq +=
 * 1}, {@code used += n}, {@code pending -= n} (four get-and-adds, each a locked {@code xadd} on
 * x86), then the release's volatile read of {@code used} and its compare-and-set to {@code used -
 * n}. Two forms: through a little-endian {@code byteBufferViewVarHandle} on the buffer (what {@link
 * SharedMemory} does), and through {@link UncheckedWords} with the base address in a register (what
 * {@code MemoryAccount} does since the VarHandle's per-access reloads and checks were measured).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class AdmitReleaseFloorBenchmark {
  private static final VarHandle LONGS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long BYTES = 4096;

  // one cache line each
  private static final int PENDING = 0;
  private static final int COMMIT_SEQ = 64;
  private static final int USED = 128;

  private Path dir;
  private MappedByteBuffer words;
  private SharedMemory mem;
  private long base;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("vnpu-floor-");
    Path file = dir.resolve("words");
    Files.write(file, new byte[4096]);
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      words = ch.map(FileChannel.MapMode.READ_WRITE, 0, 4096);
    }
    words.order(ByteOrder.LITTLE_ENDIAN);
    mem = new SharedMemory(words, file);
    base = mem.uncheckedBase();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    mem.unmap();
    Files.deleteIfExists(dir.resolve("words"));
    Files.deleteIfExists(dir);
  }

  @Benchmark
  public long fiveAtomicsVarHandle() {
    MappedByteBuffer b = words;
    LONGS.getAndAdd(b, PENDING, BYTES);
    LONGS.getAndAdd(b, COMMIT_SEQ, 1L);
    LONGS.getAndAdd(b, USED, BYTES);
    LONGS.getAndAdd(b, PENDING, -BYTES);
    long cur;
    do {
      cur = (long) LONGS.getVolatile(b, USED);
    } while (!LONGS.compareAndSet(b, USED, cur, cur - BYTES));
    return cur;
  }

  @Benchmark
  public long fiveAtomicsUnchecked() {
    long a = base;
    UncheckedWords.addLong(a + PENDING, BYTES);
    UncheckedWords.addLong(a + COMMIT_SEQ, 1L);
    UncheckedWords.addLong(a + USED, BYTES);
    UncheckedWords.addLong(a + PENDING, -BYTES);
    long cur;
    do {
      cur = UncheckedWords.getLong(a + USED);
    } while (!UncheckedWords.casLong(a + USED, cur, cur - BYTES));
    return cur;
  }
}
