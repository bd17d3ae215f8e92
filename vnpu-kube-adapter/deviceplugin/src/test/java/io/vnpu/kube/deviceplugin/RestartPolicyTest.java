package io.vnpu.kube.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RestartPolicyTest {

  private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");

  @Test
  void backoffDoublesUpToTheCap() {
    RestartPolicy p = RestartPolicy.DEFAULT;
    assertThat(p.backoff(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(p.backoff(2)).isEqualTo(Duration.ofSeconds(2));
    assertThat(p.backoff(5)).isEqualTo(Duration.ofSeconds(16));
    assertThat(p.backoff(6)).isEqualTo(Duration.ofSeconds(30));
    assertThat(p.backoff(60)).isEqualTo(Duration.ofSeconds(30));
    assertThatThrownBy(() -> p.backoff(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retry number must be >= 1, got 0");
  }

  @Test
  void budgetAllowsMaxRestartsPerSlidingWindowThenGivesUp() {
    RestartBudget b = new RestartBudget(RestartPolicy.DEFAULT); // 5 per hour
    assertThat(b.onFailure(T0)).contains(Duration.ofSeconds(1));
    assertThat(b.onFailure(T0.plusSeconds(60))).contains(Duration.ofSeconds(2));
    assertThat(b.onFailure(T0.plusSeconds(120))).contains(Duration.ofSeconds(4));
    assertThat(b.onFailure(T0.plusSeconds(180))).contains(Duration.ofSeconds(8));
    assertThat(b.onFailure(T0.plusSeconds(240))).contains(Duration.ofSeconds(16));
    assertThat(b.onFailure(T0.plusSeconds(300))).isEmpty();
  }

  @Test
  void failuresOlderThanTheWindowAreForgotten() {
    RestartBudget b =
        new RestartBudget(
            new RestartPolicy(
                2, Duration.ofMinutes(10), Duration.ofSeconds(1), Duration.ofSeconds(8)));
    assertThat(b.onFailure(T0)).contains(Duration.ofSeconds(1));
    assertThat(b.onFailure(T0.plusSeconds(300))).contains(Duration.ofSeconds(2));
    // T0 falls out of the window exactly at T0 + 10 min.
    assertThat(b.onFailure(T0.plusSeconds(600))).contains(Duration.ofSeconds(2));
    assertThat(b.recentFailures()).isEqualTo(2);
    assertThat(b.onFailure(T0.plusSeconds(601))).isEmpty();
    assertThat(b.onFailure(T0.plusSeconds(1500))).contains(Duration.ofSeconds(1));
  }

  @Test
  void zeroRestartsGivesUpAtTheFirstFailure() {
    RestartBudget b =
        new RestartBudget(
            new RestartPolicy(
                0, Duration.ofMinutes(1), Duration.ofSeconds(1), Duration.ofSeconds(1)));
    assertThat(b.onFailure(T0)).isEmpty();
  }

  @Test
  void rejectsInconsistentPolicies() {
    assertThatThrownBy(
            () ->
                new RestartPolicy(
                    -1, Duration.ofMinutes(1), Duration.ofSeconds(1), Duration.ofSeconds(1)))
        .hasMessage("maxRestarts must be >= 0, got -1");
    assertThatThrownBy(
            () -> new RestartPolicy(1, Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1)))
        .hasMessage("window must be positive, got PT0S");
    assertThatThrownBy(
            () ->
                new RestartPolicy(
                    1, Duration.ofMinutes(1), Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessage("maxBackoff PT1S is below initialBackoff PT2S");
  }
}
