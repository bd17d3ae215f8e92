package io.vnpu.quota.model;

/**
 * Compute counters the limiter maintains, for one logical device of a region or for one process
 * slot ({@code launches} and {@code busy_ns} of {@code native/include/vnpu_region.h}).
 *
 * @param launches kernel launches the limiter saw, never negative
 * @param busyNs device time those launches used, ns (measured by the limiter), never negative
 */
public record ComputeCounters(long launches, long busyNs) {
  /** No launches. */
  public static final ComputeCounters ZERO = new ComputeCounters(0, 0);

  public ComputeCounters {
    if (launches < 0) throw new IllegalArgumentException("launches must be >= 0: " + launches);
    if (busyNs < 0) throw new IllegalArgumentException("busyNs must be >= 0: " + busyNs);
  }
}
