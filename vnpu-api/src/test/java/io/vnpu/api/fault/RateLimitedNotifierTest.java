package io.vnpu.api.fault;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RateLimitedNotifierTest {
  @Test
  void atMostTenNoticesAMinute() {
    MutableClock clock = new MutableClock(Instant.parse("2026-12-01T00:00:00Z"));
    List<String> sent = new ArrayList<>();
    RateLimitedNotifier n = RateLimitedNotifier.perMinute((l, r, m) -> sent.add(m), clock);
    for (int i = 0; i < 25; i++) n.notify(0, "Occur", "m" + i);
    assertThat(sent).hasSize(10).startsWith("m0").endsWith("m9");
    assertThat(n.dropped()).isEqualTo(15);
    clock.advance(Duration.ofSeconds(59));
    n.notify(0, "Occur", "late");
    assertThat(sent).hasSize(10);
    clock.advance(Duration.ofSeconds(1));
    n.notify(0, "Recovery", "next minute");
    assertThat(sent).hasSize(11).endsWith("next minute");
    assertThat(n.dropped()).isZero();
  }
}
