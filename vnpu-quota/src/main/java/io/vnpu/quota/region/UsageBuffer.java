package io.vnpu.quota.region;

import io.vnpu.quota.layout.RegionLayout;
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
  // sized on first use to the region's slot high-water mark and device count, grown when needed:
  // a reused buffer stops allocating after its first read
  int[] slot = new int[0];
  int[] state = new int[0];
  int[] pid = new int[0];
  long[] startTime = new long[0];
  long[] generation = new long[0];
  boolean[] java = new boolean[0];

  /** Committed bytes of process {@code p} on device {@code d} at {@code p * stride + d}. */
  long[] processUsed = new long[0];

  int stride;

  /** Scratch for {@link QuotaRegion#usage(UsageBuffer)}: the commit sequences before the read. */
  final long[] commitSeq = new long[DEVS];

  /** Makes room for {@code slots} processes on {@code devs} devices. */
  void ensure(int slots, int devs) {
    if (slot.length < slots) {
      slot = new int[slots];
      state = new int[slots];
      pid = new int[slots];
      startTime = new long[slots];
      generation = new long[slots];
      java = new boolean[slots];
    }
    if (stride != devs || processUsed.length < slots * devs) {
      stride = devs;
      processUsed = new long[Math.max(slot.length, slots) * devs];
    }
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
    return pid[checkProcess(i)];
  }

  /** Committed bytes of the {@code i}-th process read on {@code device}. */
  public long processUsedBytes(int i, int device) {
    return processUsed[checkProcess(i) * stride + checkDevice(device)];
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
      List<Long> mine = new ArrayList<>(devices);
      for (int d = 0; d < devices; d++) mine.add(processUsed[p * stride + d]);
      procs.add(
          new ProcessUsage(
              slot[p], SlotState.of(state[p]), pid[p], startTime[p], generation[p], java[p], mine));
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
