package io.vnpu.kube.limiter;

/**
 * Asked before a soft-slice Allocate or Prepare answers: may a container be told it is limited?
 * Implementations are thread-safe and cheap enough to call on every request.
 */
@FunctionalInterface
public interface LimiterGate {

  /**
   * @throws LimiterUnavailableException naming the limiter file that is missing, unreadable or
   *     wrong; the request must then fail with this message
   */
  void verify() throws LimiterUnavailableException;
}
