package io.vnpu.kube.deviceplugin;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The failure history a {@link RestartPolicy} is applied to. Not thread-safe: the server's
 * supervisor thread is its only user.
 */
final class RestartBudget {

  private final RestartPolicy policy;
  private final Deque<Instant> failures = new ArrayDeque<>();

  RestartBudget(RestartPolicy policy) {
    this.policy = policy;
  }

  /**
   * Records a failure at {@code now}.
   *
   * @return the delay before the restart, or empty when the policy says to give up
   */
  Optional<Duration> onFailure(Instant now) {
    Instant horizon = now.minus(policy.window());
    while (!failures.isEmpty() && !failures.peekFirst().isAfter(horizon)) {
      failures.removeFirst();
    }
    if (failures.size() >= policy.maxRestarts()) {
      return Optional.empty();
    }
    failures.addLast(now);
    return Optional.of(policy.backoff(failures.size()));
  }

  /** Failures counted in the current window (as of the last {@link #onFailure}). */
  int recentFailures() {
    return failures.size();
  }
}
