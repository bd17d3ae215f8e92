package io.vnpu.api.fault.recovery;

import java.time.Instant;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where one job's recovery stands: persisted next to {@code reset.json} (the adapter keeps it in an
 * annotation of the same ConfigMap, written in the same update) so that a restarted plugin resumes.
 *
 * @param step the step
 * @param ring logic IDs, ascending, of the chips that reset together (4 on 910A, 8 on 910B
 *     training, 16 on A3)
 * @param faulty the chips whose fault started the recovery
 * @param deadline when the step gives up
 * @param resetIssued the ring's reset call returned (RESETTING only)
 * @param attempt recoveries of this job by this node so far, this one included
 * @param detail why the step is where it is (for people; events and logs repeat it)
 */
public record RecoveryRecord(
    RecoveryStep step,
    Set<Integer> ring,
    Set<Integer> faulty,
    Instant deadline,
    boolean resetIssued,
    int attempt,
    String detail) {
  public RecoveryRecord {
    Objects.requireNonNull(step, "step");
    ring = Collections.unmodifiableSortedSet(new TreeSet<>(ring));
    faulty = Collections.unmodifiableSortedSet(new TreeSet<>(faulty));
    Objects.requireNonNull(deadline, "deadline");
    Objects.requireNonNull(detail, "detail");
  }

  RecoveryRecord next(RecoveryStep s, Instant newDeadline, String why) {
    return new RecoveryRecord(s, ring, faulty, newDeadline, false, attempt, why);
  }

  RecoveryRecord issued() {
    return new RecoveryRecord(step, ring, faulty, deadline, true, attempt, detail);
  }
}
