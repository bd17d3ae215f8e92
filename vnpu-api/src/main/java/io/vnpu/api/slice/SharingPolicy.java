package io.vnpu.api.slice;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * How a soft slice's AI-core share is shared with the other slices of its NPU (issue 28; semantics,
 * measured: {@code docs/sharing-policies.md}). The share is the slice's compute weight, the percent
 * of the chip the scheduler charged. The names are MindCluster's values of {@code
 * huawei.com/scheduler.softShareDev.policy}; every backend and {@code vnpu run --policy} use the
 * same ones.
 */
public enum SharingPolicy {
  /** The share is guaranteed and is also the ceiling: never more, even when the chip is idle. */
  FIXED_SHARE("fixed-share"),
  /**
   * The share is guaranteed; idle time of the other slices may be borrowed (up to the ceiling, if
   * the slice has one) and is given back within a bounded time when they need it.
   */
  ELASTIC("elastic"),
  /**
   * No guarantee: only what the guaranteed slices of the chip leave, whatever the priority class.
   */
  BEST_EFFORT("best-effort");

  private final String wireName;

  SharingPolicy(String wireName) {
    this.wireName = wireName;
  }

  /** The name in annotations, opaque configuration and flags, e.g. {@code fixed-share}. */
  public String wireName() {
    return wireName;
  }

  /** The policy of a wire name (exact, lower case), empty for anything else. */
  public static Optional<SharingPolicy> fromWireName(String name) {
    for (SharingPolicy p : values()) if (p.wireName.equals(name)) return Optional.of(p);
    return Optional.empty();
  }

  /** The accepted names for an error message: {@code fixed-share, elastic or best-effort}. */
  public static String wireNames() {
    String all =
        Arrays.stream(values()).map(SharingPolicy::wireName).collect(Collectors.joining(", "));
    int last = all.lastIndexOf(", ");
    return all.substring(0, last) + " or " + all.substring(last + 2);
  }

  @Override
  public String toString() {
    return wireName;
  }
}
