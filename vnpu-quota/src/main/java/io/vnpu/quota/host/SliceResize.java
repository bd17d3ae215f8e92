package io.vnpu.quota.host;

import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What a live resize of a host slice changes; an empty part is left as it is. Built from {@link
 * #none()} with the {@code with…} methods, so that only what is asked for changes.
 *
 * <p>Semantics, once applied ({@link HostSlices#resize}, {@link SliceSession#resize}): a memory
 * quota below what the slice holds refuses every further allocation until its usage falls under the
 * quota; nothing the tenant holds is freed. A larger quota admits at once (every admission reads
 * the quota). Weight and cap take effect at the limiter's next share computation (within 5 ms;
 * docs/operations.md).
 *
 * @param memoryLimitBytes device-memory quota in bytes, 0 = unlimited
 * @param weight AI-core share weight 1..10000
 * @param capPct hard AI-core cap in percent 0..100, 0 = none
 */
public record SliceResize(OptionalLong memoryLimitBytes, OptionalInt weight, OptionalInt capPct) {

  public SliceResize {
    java.util.Objects.requireNonNull(memoryLimitBytes, "memoryLimitBytes");
    java.util.Objects.requireNonNull(weight, "weight");
    java.util.Objects.requireNonNull(capPct, "capPct");
    if (memoryLimitBytes.isPresent() && memoryLimitBytes.getAsLong() < 0) {
      throw new IllegalArgumentException(
          "memory quota = " + memoryLimitBytes.getAsLong() + " B: must be >= 0 (0 = unlimited)");
    }
    if (weight.isPresent() && (weight.getAsInt() < 1 || weight.getAsInt() > 10000)) {
      throw new IllegalArgumentException("weight = " + weight.getAsInt() + ": must be in 1..10000");
    }
    if (capPct.isPresent() && (capPct.getAsInt() < 0 || capPct.getAsInt() > 100)) {
      throw new IllegalArgumentException(
          "core cap = " + capPct.getAsInt() + " %: must be in 0..100");
    }
  }

  /** Changes nothing. */
  public static SliceResize none() {
    return new SliceResize(OptionalLong.empty(), OptionalInt.empty(), OptionalInt.empty());
  }

  /** A copy that sets the memory quota (bytes, 0 = unlimited). */
  public SliceResize withMemory(long bytes) {
    return new SliceResize(OptionalLong.of(bytes), weight, capPct);
  }

  /**
   * A copy that sets a hard cap of {@code pct} % (1..100) and the weight {@code pct}, as {@code
   * vnpu run --core PCT} makes a slice without a sharing policy. The slice's sharing policy is
   * kept: an elastic or best-effort slice gets this cap as well (it borrows no idle time above it).
   */
  public SliceResize withCore(int pct) {
    if (pct < 1 || pct > 100)
      throw new IllegalArgumentException("core = " + pct + " %: must be in 1..100");
    return new SliceResize(memoryLimitBytes, OptionalInt.of(pct), OptionalInt.of(pct));
  }

  /**
   * A copy that sets the weight and removes any cap, as {@code vnpu run --weight W} makes a slice.
   */
  public SliceResize withWeight(int w) {
    return new SliceResize(memoryLimitBytes, OptionalInt.of(w), OptionalInt.of(0));
  }

  /** Whether it changes anything at all. */
  public boolean isEmpty() {
    return memoryLimitBytes.isEmpty() && weight.isEmpty() && capPct.isEmpty();
  }
}
