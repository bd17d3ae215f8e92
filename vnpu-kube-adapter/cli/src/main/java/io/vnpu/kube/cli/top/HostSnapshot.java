package io.vnpu.kube.cli.top;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Every slice on the host at one instant.
 *
 * @param takenAt when the snapshot was read
 * @param stateDir the state directory the slices were found in
 * @param simulated whether the host is the bundled simulated node
 * @param slices slices ordered by NPU logic ID, then name
 */
public record HostSnapshot(
    Instant takenAt, String stateDir, boolean simulated, List<SliceStatus> slices) {
  public HostSnapshot {
    Objects.requireNonNull(takenAt, "takenAt");
    Objects.requireNonNull(stateDir, "stateDir");
    slices = List.copyOf(slices);
  }
}
