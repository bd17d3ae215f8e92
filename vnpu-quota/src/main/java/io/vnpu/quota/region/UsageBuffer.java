package io.vnpu.quota.region;

import io.vnpu.quota.layout.RegionLayout;
import io.vnpu.quota.mapped.SharedMemory;
import io.vnpu.quota.model.DeviceUsage;
import io.vnpu.quota.model.ProcessUsage;
import io.vnpu.quota.model.SlotState;
import io.vnpu.quota.model.UsageSnapshot;
import java.util.ArrayList;
import java.util.List;

/**
 * A reusable, primitive copy of a region's usage, filled by {@link QuotaRegion#usage(UsageBuffer)}
 * without allocating: the hot path of a reader that polls many regions (metrics, {@code vnpu top}).
 * {@link #toSnapshot()} turns it into the records of the API. Byte counts are bytes, clamped to
 * {@code Long.MAX_VALUE}. Not thread-safe: one buffer per reading thread.
 */
public final class UsageBuffer {
  private static final int DEVS = RegionLayout.REGION_MAX_DEVICES;

  int devices;
  final long[] used = new long[DEVS];
  final long[] limit = new long[DEVS];
  final long[] peak = new long[DEVS];
  final long[] oomRejections = new long[DEVS];
  final long[] reaped = new long[DEVS];
  final long[] unknownFrees = new long[DEVS];
  final long[] admissions = new long[DEVS];

  int processes;

  // One record of longs per process read, {@link #stride} longs apart: the slot's first and fourth
  // words as the region holds them (state | pid, host_pid | flags), its start time, generation and
  // index, then its committed bytes per device as written (unclamped). One array instead of one per
  // field keeps the snapshot loop within the registers (FullRegionSnapshotBenchmark); decoding and
  // clamping happen in the accessors. Sized on first use to the region's slot high-water mark and
  // device count, grown when needed: a reused buffer stops allocating after its first read.
  static final int R_STATE_PID = 0;
  static final int R_START_TIME = 1;
  static final int R_GENERATION = 2;
  static final int R_HOST_PID_FLAGS = 3;
  static final int R_SLOT = 4;
  static final int R_USED = 5;

  long[] records = new long[0];

  /**
   * Longs per record: {@link #R_USED} plus one per device, at least two (the snapshot loop writes
   * devices 0 and 1 into every record, 0 for device 1 of a one-device region).
   */
  int stride = R_USED;

  /** Scratch for {@link QuotaRegion#usage(UsageBuffer)}: the commit sequences before the read. */
  final long[] commitSeq = new long[DEVS];

  /** Makes room for {@code slots} processes on {@code devs} devices. */
  void ensure(int slots, int devs) {
    int s = R_USED + Math.max(devs, 2);
    if (stride != s || records.length < slots * s) {
      stride = s;
      records = new long[Math.max(records.length / s, slots) * s];
    }
  }

  private long field(int p, int f) {
    return records[checkProcess(p) * stride + f];
  }

  /** Number of configured devices of the region last read. */
  public int deviceCount() {
    return devices;
  }

  /** Committed bytes on {@code device}, summed over every process. */
  public long usedBytes(int device) {
    return used[checkDevice(device)];
  }

  /** The memory limit of {@code device} in bytes, 0 = unlimited. */
  public long limitBytes(int device) {
    return limit[checkDevice(device)];
  }

  /** Highest {@link #usedBytes} seen on {@code device}. */
  public long peakBytes(int device) {
    return peak[checkDevice(device)];
  }

  /** Allocations refused on {@code device} for lack of quota (207001). */
  public long oomRejections(int device) {
    return oomRejections[checkDevice(device)];
  }

  /** Number of non-free process slots read. */
  public int processCount() {
    return processes;
  }

  /** PID of the {@code i}-th process read (0 ≤ i &lt; {@link #processCount()}). */
  public int pid(int i) {
    return (int) (field(i, R_STATE_PID) >>> 32);
  }

  /** Committed bytes of the {@code i}-th process read on {@code device}. */
  public long processUsedBytes(int i, int device) {
    return SharedMemory.clampReport(field(i, R_USED + checkDevice(device)));
  }

  /** The records of the API for what was read last (allocates). */
  public UsageSnapshot toSnapshot() {
    List<DeviceUsage> devs = new ArrayList<>(devices);
    for (int d = 0; d < devices; d++) {
      devs.add(
          new DeviceUsage(
              d,
              used[d],
              limit[d],
              peak[d],
              oomRejections[d],
              reaped[d],
              unknownFrees[d],
              admissions[d]));
    }
    List<ProcessUsage> procs = new ArrayList<>(processes);
    for (int p = 0; p < processes; p++) {
      int r = p * stride;
      List<Long> mine = new ArrayList<>(devices);
      for (int d = 0; d < devices; d++) mine.add(SharedMemory.clampReport(records[r + R_USED + d]));
      long statePid = records[r + R_STATE_PID];
      procs.add(
          new ProcessUsage(
              (int) records[r + R_SLOT],
              SlotState.of((int) statePid),
              (int) (statePid >>> 32),
              records[r + R_START_TIME],
              records[r + R_GENERATION],
              ((int) (records[r + R_HOST_PID_FLAGS] >>> 32) & RegionLayout.SLOTF_JAVA) != 0,
              mine));
    }
    return new UsageSnapshot(devs, procs);
  }

  private int checkDevice(int d) {
    if (d < 0 || d >= devices)
      throw new IndexOutOfBoundsException("device " + d + " of " + devices);
    return d;
  }

  private int checkProcess(int i) {
    if (i < 0 || i >= processes)
      throw new IndexOutOfBoundsException("process " + i + " of " + processes);
    return i;
  }
}
