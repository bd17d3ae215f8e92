package io.vnpu.kube.hami;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A periodic task runs again after any exception or error of a round, and stops when closed. */
class PeriodicTaskTest {
  @Test
  void everyKindOfFailureIsFollowedByAnotherRound() {
    RecordingScheduler scheduler = new RecordingScheduler();
    Deque<Throwable> failures =
        new ArrayDeque<>(
            List.of(
                new IllegalStateException("bug"),
                new InternalError("a fault occurred in an unsafe memory access operation"),
                new AssertionError("never"),
                new Exception("checked")));
    List<Integer> rounds = new ArrayList<>();
    PeriodicTask task =
        new PeriodicTask(
            "test",
            scheduler,
            () -> {
              rounds.add(rounds.size());
              Throwable t = failures.poll();
              if (t instanceof Error e) throw e;
              if (t instanceof Exception e) throw e;
              return Duration.ofSeconds(30);
            },
            Duration.ofSeconds(5));
    task.start(Duration.ZERO);
    for (int i = 0; i < 4; i++) {
      scheduler.runNext();
      assertThat(scheduler.tasks)
          .extracting(RecordingScheduler.Task::delay)
          .containsExactly(Duration.ofSeconds(5));
    }
    scheduler.runNext();
    assertThat(scheduler.tasks)
        .extracting(RecordingScheduler.Task::delay)
        .containsExactly(Duration.ofSeconds(30));
    assertThat(rounds).containsExactly(0, 1, 2, 3, 4);
    task.close();
    scheduler.runNext();
    assertThat(scheduler.tasks).isEmpty();
    assertThat(rounds).hasSize(5);
  }
}
