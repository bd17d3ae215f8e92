package io.vnpu.benchmarks.quota;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The rows of {@code FullRegionSnapshotBenchmark} (snapshot into the buffer, the bare loop, the
 * size check's {@code fstat}) timed in the thread's CPU time (user + system) instead of wall time,
 * interleaved round by round: on a machine shared with other work the wall-time figure mostly
 * measures the wait for a CPU. For comparing two builds on such a machine, as {@link
 * AdmitReleaseCpuTime} does for admit + release; the JMH rows on a quiet machine are the figures of
 * record.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.vnpu.benchmarks.quota.SnapshotCpuTime [ROWS [ROUNDS]]
 * </pre>
 *
 * Prints, per row, the best and the median of the measured rounds of 20,000 calls (15 unless ROUNDS
 * says otherwise, after 5 warm-up rounds), in CPU ns per call. ROWS (default {@code
 * snapshot,bare,bare-unchecked,fstat}) picks rows, e.g. {@code snapshot} alone under a profiler.
 */
public final class SnapshotCpuTime {
  private static final int WARMUP_ROUNDS = 5;
  private static final int MEASURED_ROUNDS = 15;
  private static final int CALLS = 20_000;

  private SnapshotCpuTime() {}

  @FunctionalInterface
  private interface Call {
    long run() throws IOException;
  }

  public static void main(String[] args) throws IOException {
    FullRegionSnapshotBenchmark b = new FullRegionSnapshotBenchmark();
    b.setUp();
    List<String> rows =
        List.of((args.length > 0 ? args[0] : "snapshot,bare,bare-unchecked,fstat").split(","));
    int measured = args.length > 1 ? Integer.parseInt(args[1]) : MEASURED_ROUNDS;
    Map<String, String> titles =
        Map.of(
            "snapshot", "snapshot into the buffer",
            "bare", "bare loop",
            "bare-unchecked", "bare loop, unchecked loads",
            "fstat", "fstat (RandomAccessFile.length)");
    Map<String, Call> all =
        Map.of(
            "snapshot", b::usageIntoBuffer256Slots,
            "bare", b::bareLoopOverTheMapping256Slots,
            "bare-unchecked", b::bareLoopUnchecked256Slots,
            "fstat", b::sizeCheckBareFstat);
    String[] names = new String[rows.size()];
    Call[] calls = new Call[rows.size()];
    for (int c = 0; c < names.length; c++) {
      calls[c] = all.get(rows.get(c));
      if (calls[c] == null) {
        System.err.println("SnapshotCpuTime: row " + rows.get(c) + ": one of " + all.keySet());
        System.exit(2);
      }
      names[c] = titles.get(rows.get(c));
    }
    int rounds = WARMUP_ROUNDS + measured;
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    double[][] perCall = new double[calls.length][measured];
    long sink = 0;
    try {
      for (int round = 0; round < rounds; round++) {
        for (int c = 0; c < calls.length; c++) {
          long t0 = threads.getCurrentThreadCpuTime();
          for (int i = 0; i < CALLS; i++) sink += calls[c].run();
          long t1 = threads.getCurrentThreadCpuTime();
          if (round >= WARMUP_ROUNDS)
            perCall[c][round - WARMUP_ROUNDS] = (t1 - t0) / (double) CALLS;
        }
      }
    } finally {
      b.tearDown();
    }
    for (int c = 0; c < calls.length; c++) {
      double[] v = perCall[c].clone();
      Arrays.sort(v);
      System.out.printf(
          "%-32s best %7.1f  median %7.1f CPU ns per call (%d rounds of %d)%n",
          names[c], v[0], v[v.length / 2], v.length, CALLS);
    }
    if (sink == 42) System.out.println();
  }
}
