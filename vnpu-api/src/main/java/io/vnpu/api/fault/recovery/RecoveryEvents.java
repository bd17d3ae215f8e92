package io.vnpu.api.fault.recovery;

/** Port: a Kubernetes Event per recovery step (reason, message; Warning or Normal). */
@FunctionalInterface
public interface RecoveryEvents {
  /**
   * Records one step of {@code job}'s recovery; must not throw (best effort, rate-limited by the
   * adapter).
   */
  void record(TrainingJob job, String reason, String message, boolean warning);
}
