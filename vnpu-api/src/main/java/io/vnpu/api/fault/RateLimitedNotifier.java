package io.vnpu.api.fault;

import io.vnpu.api.health.FaultNotifier;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At most {@code limit} notices per {@code window} reach the delegate (MindCluster: 10 Events a
 * minute); the rest are counted and the count is logged once the window lets notices through again,
 * so a fault storm cannot flood the API server. Thread-safe.
 */
public final class RateLimitedNotifier implements FaultNotifier {
  private static final Logger LOG = LoggerFactory.getLogger(RateLimitedNotifier.class);

  private final FaultNotifier delegate;
  private final int limit;
  private final Duration window;
  private final Clock clock;
  private final Deque<Instant> sent = new ArrayDeque<>();
  private long dropped;

  public RateLimitedNotifier(FaultNotifier delegate, int limit, Duration window, Clock clock) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    if (limit < 1) throw new IllegalArgumentException("limit must be >= 1: " + limit);
    this.limit = limit;
    this.window = Objects.requireNonNull(window, "window");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** MindCluster's limit: 10 notices a minute. */
  public static RateLimitedNotifier perMinute(FaultNotifier delegate, Clock clock) {
    return new RateLimitedNotifier(delegate, 10, Duration.ofMinutes(1), clock);
  }

  @Override
  public void notify(int logicId, String reason, String message) {
    long droppedBefore;
    synchronized (this) {
      Instant now = clock.instant();
      while (!sent.isEmpty() && !sent.peekFirst().isAfter(now.minus(window))) sent.removeFirst();
      if (sent.size() >= limit) {
        dropped++;
        return;
      }
      sent.addLast(now);
      droppedBefore = dropped;
      dropped = 0;
    }
    if (droppedBefore > 0) {
      LOG.warn(
          "{} fault notices were not published (more than {} per {} s)",
          droppedBefore,
          limit,
          window.toSeconds());
    }
    delegate.notify(logicId, reason, message);
  }

  /** Notices dropped since the last one that went through. */
  public synchronized long dropped() {
    return dropped;
  }
}
