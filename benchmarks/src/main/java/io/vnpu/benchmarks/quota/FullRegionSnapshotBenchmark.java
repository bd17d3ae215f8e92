package io.vnpu.benchmarks.quota;

import static io.vnpu.quota.layout.RegionLayout.H_SLOT_HWM;
import static io.vnpu.quota.layout.RegionLayout.REGION_FILE_BYTES;
import static io.vnpu.quota.layout.RegionLayout.SLOTS_OFF;
import static io.vnpu.quota.layout.RegionLayout.SLOT_ACTIVE;
import static io.vnpu.quota.layout.RegionLayout.SLOT_BYTES;
import static io.vnpu.quota.layout.RegionLayout.S_GENERATION;
import static io.vnpu.quota.layout.RegionLayout.S_PID;
import static io.vnpu.quota.layout.RegionLayout.S_STARTTIME;
import static io.vnpu.quota.layout.RegionLayout.S_STATE;
import static io.vnpu.quota.layout.RegionLayout.S_USED_BYTES;

import io.vnpu.api.model.Units;
import io.vnpu.quota.mapped.SharedMemory;
import io.vnpu.quota.mapped.UncheckedWords;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.model.UsageSnapshot;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.region.UsageBuffer;
import java.io.IOException;
import java.io.RandomAccessFile;
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
 * Usage snapshot of a full region: all 256 process slots active, each with bytes charged on both
 * devices, as the node agent's metrics reader sees a container with 256 processes. The slot records
 * are written directly into the file (what 256 limiter processes would have left there); the
 * snapshot only reads slots, it never probes their owners.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class FullRegionSnapshotBenchmark {
  static final int SLOTS = 256;

  private Path dir;
  private QuotaRegion region;
  private FileChannel bareChannel;
  private RandomAccessFile bareFile;
  private MappedByteBuffer bare;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("vnpu-bench-");
    Path file = dir.resolve("region");
    new QuotaRegions().create(file, RegionConfig.memoryLimit(2, 64 * Units.GIB)).close();
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, REGION_FILE_BYTES);
      m.order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < SLOTS; i++) {
        int o = SLOTS_OFF + i * SLOT_BYTES;
        m.putInt(o + S_PID, 100_000 + i);
        m.putLong(o + S_STARTTIME, 1_000 + i);
        m.putLong(o + S_GENERATION, 1);
        m.putLong(o + S_USED_BYTES, (i + 1) * Units.MIB);
        m.putLong(o + S_USED_BYTES + 8, (i + 1) * 2 * Units.MIB);
        m.putInt(o + S_STATE, SLOT_ACTIVE);
      }
      m.putInt(H_SLOT_HWM, SLOTS);
      m.force();
    }
    region = new QuotaRegions().open(file);
    bareChannel = FileChannel.open(file, StandardOpenOption.READ);
    bareFile = new RandomAccessFile(file.toFile(), "r");
    bare = bareChannel.map(FileChannel.MapMode.READ_ONLY, 0, REGION_FILE_BYTES);
    bare.order(ByteOrder.LITTLE_ENDIAN);
    bareMemory = new SharedMemory(bare, file);
    bareBase = bareMemory.uncheckedBase();
    UsageSnapshot s = region.usage();
    if (s.processes().size() != SLOTS) {
      throw new IllegalStateException(
          "expected " + SLOTS + " active slots, snapshot shows " + s.processes().size());
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    region.close();
    bareChannel.close();
    bareFile.close();
    Files.deleteIfExists(dir.resolve("region"));
    Files.deleteIfExists(dir);
  }

  private final UsageBuffer buffer = new UsageBuffer();

  /** The records of the API: one ProcessUsage and a List of boxed byte counts per slot. */
  @Benchmark
  public UsageSnapshot usageSnapshot256Slots() throws IOException {
    return region.usage();
  }

  /** The primitive hot path: the same consistent read into a reused buffer, nothing allocated. */
  @Benchmark
  public long usageIntoBuffer256Slots() throws IOException {
    region.usage(buffer);
    return buffer.usedBytes(0) + buffer.processCount();
  }

  /**
   * Floor, not an API: the size check every snapshot makes first ({@code FileChannel.size()}, an
   * {@code fstat}) so that a region a tenant truncated fails the call instead of faulting on the
   * mapping. The snapshot's floor is this plus the bare loop.
   */
  @Benchmark
  public long sizeCheckFloor() throws IOException {
    return bareChannel.size();
  }

  /**
   * Floor, not an API: the same {@code fstat} without the channel's bookkeeping ({@code
   * RandomAccessFile.length()}: one JNI call, no interruptible-I/O registration): what the size
   * check would cost at least.
   */
  @Benchmark
  public long sizeCheckBareFstat() throws IOException {
    return bareFile.length();
  }

  private final int[] bareState = new int[SLOTS];
  private final int[] barePid = new int[SLOTS];
  private final long[] bareStart = new long[SLOTS];
  private final long[] bareGeneration = new long[SLOTS];
  private final long[] bareUsed = new long[SLOTS * 2];

  /**
   * Baseline, not an API: the same fields of the same 256 slots copied by a bare loop over a
   * mapping, with no commit-sequence check, no pin and no validation. It shows what a Java reader
   * of this layout costs at best, so the hot path's overhead over it can be judged (the C loop over
   * the same layout is in docs/benchmarks.md).
   */
  @Benchmark
  public long bareLoopOverTheMapping256Slots() {
    long total0 = 0;
    long total1 = 0;
    int n = 0;
    for (int i = 0; i < SLOTS; i++) {
      int o = SLOTS_OFF + i * SLOT_BYTES;
      long u0 = bare.getLong(o + S_USED_BYTES);
      long u1 = bare.getLong(o + S_USED_BYTES + 8);
      total0 += u0;
      total1 += u1;
      int state = bare.getInt(o + S_STATE);
      if (state != SLOT_ACTIVE) continue;
      bareUsed[2 * n] = u0;
      bareUsed[2 * n + 1] = u1;
      bareState[n] = state;
      barePid[n] = bare.getInt(o + S_PID);
      bareStart[n] = bare.getLong(o + S_STARTTIME);
      bareGeneration[n] = bare.getLong(o + S_GENERATION);
      n++;
    }
    return total0 + total1 + n;
  }

  private SharedMemory bareMemory; // keeps the bare mapping reachable for bareBase
  private long bareBase;

  /**
   * Baseline, not an API: {@link #bareLoopOverTheMapping256Slots} with {@link UncheckedWords} plain
   * loads on the mapping's base instead of the buffer's checked {@code getLong}/{@code getInt}, the
   * loads {@code QuotaRegion.usage} makes since the snapshot's slot loop went unchecked: what that
   * loop costs at best.
   */
  @Benchmark
  public long bareLoopUnchecked256Slots() {
    long a = bareBase;
    long total0 = 0;
    long total1 = 0;
    int n = 0;
    for (int i = 0; i < SLOTS; i++) {
      long o = a + SLOTS_OFF + (long) i * SLOT_BYTES;
      long u0 = UncheckedWords.getLongPlain(o + S_USED_BYTES);
      long u1 = UncheckedWords.getLongPlain(o + S_USED_BYTES + 8);
      total0 += u0;
      total1 += u1;
      long statePid = UncheckedWords.getLongPlain(o + S_STATE);
      if ((int) statePid != SLOT_ACTIVE) continue;
      bareUsed[2 * n] = u0;
      bareUsed[2 * n + 1] = u1;
      bareState[n] = (int) statePid;
      barePid[n] = (int) (statePid >>> 32);
      bareStart[n] = UncheckedWords.getLongPlain(o + S_STARTTIME);
      bareGeneration[n] = UncheckedWords.getLongPlain(o + S_GENERATION);
      n++;
    }
    return total0 + total1 + n;
  }
}
