package io.vnpu.quota.model;

import java.util.List;

/**
 * A consistent view of a region's memory accounting: no admission committed while it was read, so
 * every {@code usedBytes} is a value the region really held (and not above its limit when
 * enforced).
 */
public record UsageSnapshot(List<DeviceUsage> devices, List<ProcessUsage> processes) {

  public UsageSnapshot {
    devices = List.copyOf(devices);
    processes = List.copyOf(processes);
  }
}
