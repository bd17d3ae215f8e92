package io.vnpu.api.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.ChipReading;
import io.vnpu.api.health.ChipUsage;
import io.vnpu.api.health.FaultCode;
import io.vnpu.api.health.FaultEvent;
import io.vnpu.api.health.FaultLevel;
import io.vnpu.api.health.FaultProbe;
import io.vnpu.api.health.ManualSeparationStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class HealthMonitorTest {
  /** A driver whose active codes the test sets. */
  static final class FakeProbe implements FaultProbe {
    final Map<Integer, Set<FaultCode>> codes = new ConcurrentHashMap<>();

    @Override
    public List<Integer> chips() {
      return List.of(0, 1);
    }

    @Override
    public ChipReading read(int logicId) {
      return ChipReading.of(codes.getOrDefault(logicId, Set.of()), Optional.empty());
    }

    @Override
    public boolean subscribe(Consumer<FaultEvent> sink) {
      return false;
    }

    @Override
    public void close() {}
  }

  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T00:00:00Z"));
  private final FakeProbe probe = new FakeProbe();
  private final ManualSeparationStore store = ManualSeparationStore.inMemory();
  private final List<String> events = new ArrayList<>();
  private final HealthMonitor monitor =
      new HealthMonitor(
          probe,
          new FaultTracker(FaultConfigs.shippedDefault(), clock),
          store,
          ChipUsage.NONE,
          (logic, reason, message) -> events.add(reason + ": " + message),
          Duration.ofSeconds(5));

  @Test
  @SuppressWarnings("try") // the subscription only needs to be open while the polls run
  void watchersSeeAFaultAndTheRecoveryAndNothingElse() throws Exception {
    List<Map<Integer, ChipHealth>> seen = new ArrayList<>();
    try (AutoCloseable w = monitor.watch(seen::add)) {
      monitor.pollOnce();
      assertThat(seen).hasSize(1);
      monitor.pollOnce();
      assertThat(seen).hasSize(1);
      probe.codes.put(1, Set.of(FaultCode.parse("80E3A201")));
      monitor.pollOnce();
      assertThat(seen).hasSize(2);
      assertThat(seen.get(1).get(1).healthy()).isFalse();
      assertThat(monitor.chip(1).level()).isEqualTo(FaultLevel.SEPARATE_NPU);
      assertThat(monitor.chip(0).healthy()).isTrue();
      probe.codes.remove(1);
      monitor.pollOnce();
      assertThat(seen).hasSize(3);
      assertThat(monitor.chip(1)).isEqualTo(ChipHealth.normal(1));
    }
    assertThat(events)
        .containsExactly(
            "Occur: NPU logic 1: fault 80E3A201 occurred (SeparateNPU)",
            "Recovery: NPU logic 1: fault 80E3A201 recovered");
  }

  @Test
  void manualSeparationIsPersistedAndAnOperatorEditReleasesIt() {
    FaultCode ecc = FaultCode.parse("80E01801");
    probe.codes.put(0, Set.of(ecc));
    monitor.pollOnce();
    probe.codes.remove(0);
    clock.advance(Duration.ofMinutes(1));
    monitor.pollOnce();
    probe.codes.put(0, Set.of(ecc));
    clock.advance(Duration.ofMinutes(1));
    monitor.pollOnce();
    probe.codes.remove(0);
    clock.advance(Duration.ofMinutes(1));
    monitor.pollOnce();
    assertThat(monitor.chip(0).level()).isEqualTo(FaultLevel.MANUALLY_SEPARATE_NPU);
    assertThat(store.load()).containsExactly(0);

    // a restarted monitor reads the persisted list
    HealthMonitor restarted =
        new HealthMonitor(
            probe,
            new FaultTracker(FaultConfigs.shippedDefault(), clock),
            store,
            ChipUsage.NONE,
            (l, r, m) -> {},
            Duration.ofSeconds(5));
    assertThat(restarted.pollOnce().get(0).level()).isEqualTo(FaultLevel.MANUALLY_SEPARATE_NPU);

    store.save(Set.of());
    assertThat(monitor.pollOnce().get(0)).isEqualTo(ChipHealth.normal(0));
    assertThat(restarted.pollOnce().get(0)).isEqualTo(ChipHealth.normal(0));
  }
}
