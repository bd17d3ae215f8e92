package io.vnpu.kube.cli.top;

import java.util.HashMap;
import java.util.Map;

/**
 * Turns cumulative device-busy nanoseconds of each slice into the AI-core share achieved between
 * two readings: busy time gained over wall time elapsed, in percent of the NPU. Not thread-safe.
 */
public final class ShareMeter {

  private record Reading(long busyNs, long wallNs) {}

  private final Map<String, Reading> last = new HashMap<>();

  /**
   * Records a reading and returns the share since the previous one of the same slice.
   *
   * @param slice slice name
   * @param busyNs cumulative device-busy ns of the slice (monotonic; a decrease means the slice was
   *     re-created and restarts the measurement)
   * @param wallNs a monotonic clock in ns ({@code System.nanoTime()})
   * @return percent 0..100 (clamped), or null for the first reading or when no time elapsed
   */
  public Double record(String slice, long busyNs, long wallNs) {
    Reading prev = last.put(slice, new Reading(busyNs, wallNs));
    if (prev == null || wallNs <= prev.wallNs || busyNs < prev.busyNs) return null;
    double pct = 100.0 * (busyNs - prev.busyNs) / (wallNs - prev.wallNs);
    return Math.max(0, Math.min(100, pct));
  }

  /** Forgets slices that are not in {@code live} (so a re-created name starts fresh). */
  public void retainOnly(java.util.Set<String> live) {
    last.keySet().retainAll(live);
  }
}
