package io.vnpu.kube.cli.top;

import io.vnpu.api.model.Priority;
import java.util.List;
import java.util.Objects;

/**
 * What {@code vnpu top} shows of one slice (one quota region) at one instant.
 *
 * @param name slice name (directory name under the state dir)
 * @param logicId DCMI logic ID of the NPU the slice runs on
 * @param memoryUsedBytes device memory charged now, bytes
 * @param memoryLimitBytes memory quota, bytes; 0 = unlimited
 * @param memoryPeakBytes highest charge seen, bytes
 * @param oomRejections allocations refused with 207001 so far
 * @param weight AI-core share weight (1..10000)
 * @param capPct hard AI-core cap in percent, 0 = none
 * @param priority launch priority class
 * @param targetSharePct the AI-core share this slice is entitled to when every slice on its NPU is
 *     busy: its weight over the sum of weights, limited by its cap; percent 0..100
 * @param achievedSharePct AI-core share measured over the last interval, percent, or null when not
 *     measured (first sample, or no compute counters)
 * @param ownerPid pid of the {@code vnpu run} (or other creator) that owns the slice, 0 = unknown
 * @param stale true when the owner is gone and the slice was left behind
 * @param processes processes with a slot in the region, by pid
 */
public record SliceStatus(
    String name,
    int logicId,
    long memoryUsedBytes,
    long memoryLimitBytes,
    long memoryPeakBytes,
    long oomRejections,
    int weight,
    int capPct,
    Priority priority,
    double targetSharePct,
    Double achievedSharePct,
    long ownerPid,
    boolean stale,
    List<ProcessStatus> processes) {

  public SliceStatus {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(priority, "priority");
    processes = List.copyOf(processes);
  }

  /** A copy with another target share. */
  public SliceStatus withTargetSharePct(double pct) {
    return new SliceStatus(
        name,
        logicId,
        memoryUsedBytes,
        memoryLimitBytes,
        memoryPeakBytes,
        oomRejections,
        weight,
        capPct,
        priority,
        pct,
        achievedSharePct,
        ownerPid,
        stale,
        processes);
  }
}
