package io.vnpu.kube.dra.state;

import io.vnpu.kube.dra.checkpoint.Checkpoint;

/**
 * The checkpoint of the claim-state transaction under way ({@link DeviceState}, under its lock):
 * the steps of each sharing mechanism read it and record what they created or removed in it.
 */
interface Journal {
  /** The checkpoint as it is now in this transaction. */
  Checkpoint current();

  /**
   * Writes {@code next} and makes it current.
   *
   * @throws StateUnavailableException when the checkpoint cannot be written
   */
  void save(Checkpoint next) throws StateUnavailableException;

  /**
   * Makes {@code next} current and writes it with the transaction's last write, without waiting:
   * for a step whose record may be lost in a crash (the step is repeated then and finds its work
   * done).
   */
  void record(Checkpoint next);
}
