package io.vnpu.quota.model;

import java.util.List;

/**
 * One non-free process slot.
 *
 * @param slot slot index 0..255
 * @param state slot state
 * @param pid PID in the owner's PID namespace (diagnostics only: ownership is the slot lock)
 * @param startTime start time of the owner, clock ticks since boot (field 22 of /proc/PID/stat)
 * @param generation claim counter of the slot
 * @param java whether a JVM (vnpu-quota) claimed the slot rather than the C limiter
 * @param usedBytes committed bytes per logical device, index = device, one entry per configured
 *     device
 */
public record ProcessUsage(
    int slot,
    SlotState state,
    int pid,
    long startTime,
    long generation,
    boolean java,
    List<Long> usedBytes) {

  public ProcessUsage {
    usedBytes = List.copyOf(usedBytes);
  }
}
