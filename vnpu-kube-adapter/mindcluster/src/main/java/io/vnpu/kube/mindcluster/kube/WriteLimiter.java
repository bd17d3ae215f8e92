package io.vnpu.kube.mindcluster.kube;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * When the device-info ConfigMap is written (spec section 3.4): when its content changed, and
 * otherwise again after {@code refresh} (to renew {@code UpdateTime}); never twice within {@code
 * minGap}. A change refused by the gap stays due and is written by the next attempt. Not
 * thread-safe (its owner serialises attempts).
 */
public final class WriteLimiter {
  /** Shortest time between two writes. */
  public static final Duration MIN_GAP = Duration.ofSeconds(1);

  /** Longest time without a write. */
  public static final Duration REFRESH = Duration.ofMinutes(5);

  private final Clock clock;
  private final Duration minGap;
  private final Duration refresh;
  private Instant lastWrite;
  private String lastContent;

  public WriteLimiter(Clock clock, Duration minGap, Duration refresh) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.minGap = Objects.requireNonNull(minGap, "minGap");
    this.refresh = Objects.requireNonNull(refresh, "refresh");
  }

  /** Whether content {@code content} (without its timestamp) is to be written now. */
  public boolean due(String content) {
    Instant now = clock.instant();
    if (lastWrite == null) return true;
    if (now.isBefore(lastWrite.plus(minGap))) return false;
    return !content.equals(lastContent) || !now.isBefore(lastWrite.plus(refresh));
  }

  /** Records a successful write of {@code content}. */
  public void written(String content) {
    lastWrite = clock.instant();
    lastContent = content;
  }
}
