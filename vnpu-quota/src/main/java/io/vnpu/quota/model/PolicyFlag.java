package io.vnpu.quota.model;

import io.vnpu.api.slice.SharingPolicy;
import io.vnpu.quota.layout.RegionLayout;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/** Bits of the region's {@code policy_flags} header field (u32). */
public enum PolicyFlag {
  /** Allocations over a device's memory limit are refused with 207001. */
  MEM_ENFORCE(RegionLayout.POLICY_MEM_ENFORCE),
  /** Kernel launches are throttled to the AI-core share. */
  COMPUTE_ENFORCE(RegionLayout.POLICY_COMPUTE_ENFORCE),
  /** Trouble with the compute registry lets launches run unthrottled. */
  COMPUTE_FAIL_OPEN(RegionLayout.POLICY_COMPUTE_FAIL_OPEN),
  /** {@code compute_cap_pct} is a hard ceiling even when the NPU is otherwise idle. */
  HARD_CAP(RegionLayout.POLICY_HARD_CAP),
  /** Sharing policy fixed-share: the share (weight) is guaranteed and is the cap (issue 28). */
  FIXED_SHARE(RegionLayout.POLICY_FIXED_SHARE),
  /** Sharing policy elastic: the share is guaranteed, idle time is borrowed and given back. */
  ELASTIC(RegionLayout.POLICY_ELASTIC),
  /** Sharing policy best-effort: no guarantee, only what the guaranteed slices leave. */
  BEST_EFFORT(RegionLayout.POLICY_BEST_EFFORT);

  private final int bit;

  PolicyFlag(int bit) {
    this.bit = bit;
  }

  /** The bit in {@code policy_flags}. */
  public int bit() {
    return bit;
  }

  /** The flag of a sharing policy. */
  public static PolicyFlag of(SharingPolicy p) {
    return switch (p) {
      case FIXED_SHARE -> FIXED_SHARE;
      case ELASTIC -> ELASTIC;
      case BEST_EFFORT -> BEST_EFFORT;
    };
  }

  /**
   * The sharing policy among {@code flags}, empty when none (at most one is set: {@code
   * RegionConfig}).
   */
  public static Optional<SharingPolicy> sharingPolicy(Set<PolicyFlag> flags) {
    for (SharingPolicy p : SharingPolicy.values()) if (flags.contains(of(p))) return Optional.of(p);
    return Optional.empty();
  }

  /** Encodes a set of flags as the u32 header value. */
  public static int encode(Set<PolicyFlag> flags) {
    int v = 0;
    for (PolicyFlag f : flags) v |= f.bit;
    return v;
  }

  /**
   * Decodes the known bits of a header value; unknown bits are ignored (a newer minor may add
   * some).
   */
  public static Set<PolicyFlag> decode(int value) {
    EnumSet<PolicyFlag> s = EnumSet.noneOf(PolicyFlag.class);
    for (PolicyFlag f : values()) if ((value & f.bit) != 0) s.add(f);
    return s;
  }
}
