package io.vnpu.kube.deviceplugin;

import java.time.Duration;
import java.util.Objects;

/**
 * How often the device plugin server may fail and be restarted before it gives up.
 *
 * <p>A failure is a start attempt that could not bind its socket or register with the kubelet, or a
 * gRPC server that terminated without being asked to. Kubelet restarts are not failures. At most
 * {@code maxRestarts} failures within any sliding {@code window} are retried; the next one gives
 * up. The k-th retry within the window waits {@code initialBackoff × 2^(k-1)}, capped at {@code
 * maxBackoff}.
 *
 * @param maxRestarts restarts allowed within {@code window}, at least 0
 * @param window sliding window over which failures are counted, positive
 * @param initialBackoff delay before the first retry, positive
 * @param maxBackoff upper bound of the delay, at least {@code initialBackoff}
 */
public record RestartPolicy(
    int maxRestarts, Duration window, Duration initialBackoff, Duration maxBackoff) {

  /** Five restarts per hour (like the upstream plugin's crash counter), backoff 1 s up to 30 s. */
  public static final RestartPolicy DEFAULT =
      new RestartPolicy(5, Duration.ofHours(1), Duration.ofSeconds(1), Duration.ofSeconds(30));

  public RestartPolicy {
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(initialBackoff, "initialBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    if (maxRestarts < 0) {
      throw new IllegalArgumentException("maxRestarts must be >= 0, got " + maxRestarts);
    }
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("window must be positive, got " + window);
    }
    if (initialBackoff.isNegative() || initialBackoff.isZero()) {
      throw new IllegalArgumentException("initialBackoff must be positive, got " + initialBackoff);
    }
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException(
          "maxBackoff " + maxBackoff + " is below initialBackoff " + initialBackoff);
    }
  }

  /**
   * Delay before the {@code k}-th retry within the window (k starting at 1).
   *
   * @throws IllegalArgumentException when k is below 1
   */
  public Duration backoff(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("retry number must be >= 1, got " + k);
    }
    Duration d = initialBackoff;
    for (int i = 1; i < k && d.compareTo(maxBackoff) < 0; i++) {
      d = d.multipliedBy(2);
    }
    return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
  }
}
