package io.vnpu.api.fault.recovery;

/**
 * The recovery of one job, in order. Each step is persisted before its action is taken, so that a
 * restarted plugin resumes where it stopped ({@link TrainingRecovery}).
 */
public enum RecoveryStep {
  /**
   * Ranks marked unrecovered, graceful exit asked; waiting for the job's processes on the ring to
   * go.
   */
  STOPPING,
  /** The ring's reset is issued (or about to be); waiting for every chip to boot. */
  RESETTING,
  /** Booted; waiting for the parameter-plane network of every chip to be healthy. */
  CHECKING_NETWORK,
  /** Done: the ranks are recovered and the job may restart. */
  RECOVERED,
  /** Given up: the faulty chips are separated (ManuallySeparateNPU) and the ranks failed. */
  ISOLATED,
  /**
   * Nothing left to reset: a restarted plugin found the job waiting to stop but its faulty chips no
   * longer need a reset (the fault cleared while no plugin ran). The ranks are recovered without a
   * reset, the graceful exit is withdrawn and the job may restart.
   */
  ABANDONED;

  /** No further action is taken for the job in this step. */
  public boolean terminal() {
    return this == RECOVERED || this == ISOLATED || this == ABANDONED;
  }
}
