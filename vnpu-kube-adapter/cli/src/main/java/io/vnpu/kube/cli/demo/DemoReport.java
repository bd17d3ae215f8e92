package io.vnpu.kube.cli.demo;

import java.util.List;
import java.util.Objects;

/**
 * Everything {@code vnpu demo} found out, the input of the written report.
 *
 * @param node one line describing the node and how it was discovered
 * @param slices the slices created
 * @param memory the memory-quota trial
 * @param compute the compute-share trial
 * @param checks pass/fail checks, in order
 * @param durationSeconds wall time of the whole demo
 * @param chartFile file name of the share chart, relative to the report
 */
public record DemoReport(
    String node,
    List<SliceRow> slices,
    MemoryTrial memory,
    ComputeTrial compute,
    List<DemoCheck> checks,
    double durationSeconds,
    String chartFile) {

  public DemoReport {
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(memory, "memory");
    Objects.requireNonNull(compute, "compute");
    Objects.requireNonNull(chartFile, "chartFile");
    slices = List.copyOf(slices);
    checks = List.copyOf(checks);
  }

  /** True when there is at least one check and every check passed. */
  public boolean passed() {
    return !checks.isEmpty() && checks.stream().allMatch(DemoCheck::passed);
  }

  /**
   * A slice of the demo.
   *
   * @param name slice name
   * @param logicId NPU logic ID
   * @param memoryLimitBytes memory quota, bytes
   * @param weight AI-core weight
   * @param targetSharePct entitled AI-core share, percent
   */
  public record SliceRow(
      String name, int logicId, long memoryLimitBytes, int weight, double targetSharePct) {}

  /**
   * The memory trial: one slice fills its quota and asks for more; the neighbour allocates
   * meanwhile.
   *
   * @param slice the slice pushed over its quota
   * @param heldBytes bytes it held when it asked for more
   * @param requestBytes the allocation that would exceed the quota, bytes
   * @param refusalCode what the runtime returned for it (207001 expected), or 0 if it succeeded
   * @param neighbour the other slice
   * @param neighbourBytes bytes the neighbour allocated meanwhile
   * @param neighbourOk whether all of the neighbour's allocations succeeded
   */
  public record MemoryTrial(
      String slice,
      long heldBytes,
      long requestBytes,
      int refusalCode,
      String neighbour,
      long neighbourBytes,
      boolean neighbourOk) {}

  /**
   * The compute trial: both slices saturate the NPU; shares are measured per interval.
   *
   * @param source where the busy time comes from (e.g. simulator ground truth)
   * @param settleSeconds start of the steady-state window, seconds after the workloads started
   * @param endSeconds end of the window
   * @param results achieved shares over the window, one per slice
   * @param samples share per interval, for the chart
   */
  public record ComputeTrial(
      String source,
      double settleSeconds,
      double endSeconds,
      List<ShareResult> results,
      List<ShareSample> samples) {
    public ComputeTrial {
      results = List.copyOf(results);
      samples = List.copyOf(samples);
    }
  }

  /**
   * Achieved share of one slice over the steady-state window.
   *
   * @param slice slice name
   * @param targetPct entitled share, percent
   * @param achievedPct achieved share, percent of the NPU's time
   */
  public record ShareResult(String slice, double targetPct, double achievedPct) {}

  /**
   * The share of one slice over one sampling interval.
   *
   * @param slice slice name
   * @param seconds end of the interval, seconds after the workloads started
   * @param sharePct its busy time over the interval's wall time, percent
   */
  public record ShareSample(String slice, double seconds, double sharePct) {}
}
