package io.vnpu.api.fault.recovery;

import java.util.List;

/** Port: the training jobs that hold chips of this node now (pods bound here, not terminated). */
@FunctionalInterface
public interface TrainingJobs {
  /**
   * The jobs now.
   *
   * @throws RuntimeException when they cannot be listed (the API server is unreachable): the
   *     recovery then does nothing this round, it never guesses
   */
  List<TrainingJob> onNode();
}
