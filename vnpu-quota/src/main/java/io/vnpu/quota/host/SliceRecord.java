package io.vnpu.quota.host;

import io.vnpu.api.model.Priority;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The description of a slice the CLI keeps beside its quota region ({@code slice.json}).
 *
 * @param name slice name, {@code [A-Za-z0-9][A-Za-z0-9._-]{0,62}}
 * @param logicId DCMI logic ID of the NPU
 * @param phyId phy ID of the NPU (names its compute registry file), -1 unknown
 * @param memoryLimitBytes memory quota in bytes, 0 = unlimited
 * @param weight AI-core share weight 1..10000
 * @param capPct hard AI-core cap in percent, 0 = none
 * @param priority launch priority class
 * @param ownerPid pid of the process that created the slice and removes it
 * @param ownerStartMillis start time of that process (epoch ms), to tell a reused pid apart
 * @param createdMillis creation time (epoch ms)
 * @param command the command the slice runs, for display
 */
public record SliceRecord(
    String name,
    int logicId,
    int phyId,
    long memoryLimitBytes,
    int weight,
    int capPct,
    Priority priority,
    long ownerPid,
    long ownerStartMillis,
    long createdMillis,
    List<String> command) {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");

  public SliceRecord {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(priority, "priority");
    command = List.copyOf(command);
    checkName(name);
    if (logicId < 0) throw new IllegalArgumentException("logicId must be >= 0: " + logicId);
    if (memoryLimitBytes < 0)
      throw new IllegalArgumentException("memoryLimitBytes must be >= 0: " + memoryLimitBytes);
    if (weight < 1 || weight > 10000)
      throw new IllegalArgumentException("weight must be in 1..10000: " + weight);
    if (capPct < 0 || capPct > 100)
      throw new IllegalArgumentException("capPct must be in 0..100: " + capPct);
  }

  /** A copy with other sizes (a live resize). */
  public SliceRecord withSizes(long newMemoryLimitBytes, int newWeight, int newCapPct) {
    return new SliceRecord(
        name,
        logicId,
        phyId,
        newMemoryLimitBytes,
        newWeight,
        newCapPct,
        priority,
        ownerPid,
        ownerStartMillis,
        createdMillis,
        command);
  }

  /**
   * Checks a slice name: {@code [A-Za-z0-9][A-Za-z0-9._-]{0,62}} (it names a directory).
   *
   * @throws IllegalArgumentException naming the value and the rule
   */
  public static void checkName(String name) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "slice name '"
              + name
              + "' must be 1..63 characters of letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
  }
}
