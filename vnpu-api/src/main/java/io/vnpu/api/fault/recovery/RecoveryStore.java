package io.vnpu.api.fault.recovery;

import java.util.List;
import java.util.Optional;

/**
 * Port to the job's ConfigMaps: {@code reset-config-<job>} (keys {@code reset.json}, {@code
 * restartType}, {@code checkCode}, with the {@link RecoveryRecord}) and {@code fault-config-<job>}
 * (keys {@code fault-npus}, {@code checkCode}).
 */
public interface RecoveryStore {
  /**
   * The record this node left for the job, if any.
   *
   * @throws RuntimeException when it cannot be read (the recovery retries next round)
   */
  Optional<Persisted> load(TrainingJob job);

  /**
   * Writes {@code reset.json} and the record in one update, and {@code fault-npus} when not null.
   *
   * @throws RuntimeException when it cannot be written (the step is not taken; retried next round)
   */
  void save(TrainingJob job, ResetInfo info, RecoveryRecord record, List<RankEntry> faultNpus);

  /** What {@link #load} found. */
  record Persisted(ResetInfo info, RecoveryRecord record) {}
}
