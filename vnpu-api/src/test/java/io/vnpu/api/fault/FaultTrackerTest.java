package io.vnpu.api.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.health.Assertion;
import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.ChipReading;
import io.vnpu.api.health.FaultCode;
import io.vnpu.api.health.FaultEvent;
import io.vnpu.api.health.FaultLevel;
import io.vnpu.api.health.FaultOrigin;
import io.vnpu.api.health.FaultUpgrade;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FaultTrackerTest {
  private static final FaultCode ECC = FaultCode.parse("80E01801");
  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T00:00:00Z"));
  private final FaultTracker tracker = new FaultTracker(FaultConfigs.shippedDefault(), clock);

  private ChipHealth chip(int logic) {
    return tracker.evaluate(Set.of(0, 1, 2, 3), l -> false, Set.of()).get(logic);
  }

  private ChipHealth chip(int logic, boolean inUse) {
    return tracker.evaluate(Set.of(0, 1, 2, 3), l -> inUse, Set.of()).get(logic);
  }

  private void poll(int logic, String... codes) {
    Set<FaultCode> set = new java.util.HashSet<>();
    for (String c : codes) set.add(FaultCode.parse(c));
    tracker.onReading(logic, ChipReading.of(set, Optional.empty()));
  }

  private void link(int logic, boolean up) {
    tracker.onReading(logic, ChipReading.of(Set.of(), Optional.of(up)));
  }

  @Test
  void polledFaultMakesTheChipUnhealthyAndItsDisappearanceHealsIt() {
    assertThat(chip(1)).isEqualTo(ChipHealth.normal(1));
    poll(1, "40F84E00");
    ChipHealth sick = chip(1);
    assertThat(sick.healthy()).isFalse();
    assertThat(sick.level()).isEqualTo(FaultLevel.RESTART_NPU);
    assertThat(sick.reason()).isEqualTo("40F84E00 RestartNPU (poll)");
    assertThat(sick.networkHealthy()).isTrue();
    assertThat(sick.toDeviceHealth().faultCode()).isEqualTo(0x40F84E00L);
    assertThat(chip(0).healthy()).isTrue();
    clock.advance(Duration.ofSeconds(5));
    poll(1);
    assertThat(chip(1)).isEqualTo(ChipHealth.normal(1));
    assertThat(tracker.drainNotices())
        .extracting(FaultNotice::message)
        .containsExactly(
            "NPU logic 1: fault 40F84E00 occurred (RestartNPU)",
            "NPU logic 1: fault 40F84E00 recovered");
  }

  @Test
  void notHandleAndSubHealthFaultsKeepTheChipSchedulable() {
    poll(2, "8C2FA009", "81A3880C");
    ChipHealth h = chip(2);
    assertThat(h.healthy()).isTrue();
    assertThat(h.level()).isEqualTo(FaultLevel.SUB_HEALTH_FAULT);
    assertThat(h.faults()).hasSize(2);
  }

  @Test
  void cardDropBecomesTheSyntheticCodeAndClearsWhenTheCardIsBack() {
    tracker.onReading(3, ChipReading.dropped());
    assertThat(chip(3).faults())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.code()).isEqualTo(FaultCode.CARD_DROP);
              assertThat(f.origin()).isEqualTo(FaultOrigin.CARD_DROP);
            });
    assertThat(chip(3).level()).isEqualTo(FaultLevel.RESTART_NPU);
    poll(3);
    assertThat(chip(3).healthy()).isTrue();
  }

  @Test
  void aFailedPollChangesNothing() {
    poll(1, "80E3A201");
    tracker.onReading(1, ChipReading.failed("dcmi_get_device_errorcode_v2: -8010"));
    assertThat(chip(1).level()).isEqualTo(FaultLevel.SEPARATE_NPU);
  }

  @Test
  void unknownEventCodeIsGradedBySeverity() {
    tracker.onEvent(
        new FaultEvent(
            0,
            FaultCode.parse("8FFF0001"),
            Assertion.OCCURRED,
            1,
            clock.instant(),
            FaultOrigin.EVENT));
    tracker.onEvent(
        new FaultEvent(
            1,
            FaultCode.parse("8FFF0002"),
            Assertion.OCCURRED,
            2,
            clock.instant(),
            FaultOrigin.EVENT));
    assertThat(chip(0).level()).isEqualTo(FaultLevel.NOT_HANDLE_FAULT);
    assertThat(chip(0).healthy()).isTrue();
    assertThat(chip(1).level()).isEqualTo(FaultLevel.SEPARATE_NPU);
    assertThat(chip(1).healthy()).isFalse();
  }

  @Test
  void anEventSurvivesAPollThatRacedItButNotTheNextOne() {
    poll(0);
    clock.advance(Duration.ofSeconds(1));
    tracker.onEvent(
        new FaultEvent(0, ECC, Assertion.OCCURRED, 2, clock.instant(), FaultOrigin.EVENT));
    poll(0); // started before the driver listed the code
    assertThat(chip(0).level()).isEqualTo(FaultLevel.RESTART_BUSINESS);
    clock.advance(Duration.ofSeconds(5));
    poll(0); // the recovery event was lost: the poll heals the chip (MindCluster FAQ #375)
    assertThat(chip(0).healthy()).isTrue();
  }

  @Test
  void sameCodeTwiceInTheWindowSeparatesManuallyUntilTheOperatorClearsIt() {
    tracker.onEvent(
        new FaultEvent(2, ECC, Assertion.OCCURRED, 2, clock.instant(), FaultOrigin.EVENT));
    clock.advance(Duration.ofMinutes(10));
    tracker.onEvent(
        new FaultEvent(2, ECC, Assertion.RECOVERED, 2, clock.instant(), FaultOrigin.EVENT));
    assertThat(chip(2).healthy()).isTrue();
    clock.advance(Duration.ofHours(3));
    tracker.onEvent(
        new FaultEvent(2, ECC, Assertion.OCCURRED, 2, clock.instant(), FaultOrigin.EVENT));
    Instant second = clock.instant();
    tracker.onEvent(
        new FaultEvent(2, ECC, Assertion.RECOVERED, 2, clock.instant(), FaultOrigin.EVENT));
    ChipHealth h = chip(2);
    assertThat(h.level()).isEqualTo(FaultLevel.MANUALLY_SEPARATE_NPU);
    assertThat(h.healthy()).isFalse();
    assertThat(h.faults()).isEmpty();
    assertThat(h.upgrades())
        .containsExactly(
            new FaultUpgrade(
                ECC, FaultLevel.MANUALLY_SEPARATE_NPU, FaultUpgrade.Type.FaultFrequency, second));
    assertThat(tracker.manualSeparation()).containsExactly(2);

    clock.advance(Duration.ofDays(30)); // no release window: time alone never clears it
    assertThat(chip(2).level()).isEqualTo(FaultLevel.MANUALLY_SEPARATE_NPU);

    tracker.persisted(Set.of(2)); // what the monitor does after writing the store
    tracker.syncManualSeparation(Set.of(2));
    assertThat(chip(2).level()).isEqualTo(FaultLevel.MANUALLY_SEPARATE_NPU);
    tracker.syncManualSeparation(Set.of()); // the operator removed it from the persisted list
    assertThat(chip(2)).isEqualTo(ChipHealth.normal(2));
  }

  @Test
  void occurrencesOutsideTheWindowDoNotEscalate() {
    tracker.onEvent(
        new FaultEvent(2, ECC, Assertion.ONE_SHOT, 2, clock.instant(), FaultOrigin.EVENT));
    clock.advance(Duration.ofSeconds(86401));
    tracker.onEvent(
        new FaultEvent(2, ECC, Assertion.ONE_SHOT, 2, clock.instant(), FaultOrigin.EVENT));
    assertThat(chip(2)).isEqualTo(ChipHealth.normal(2));
    assertThat(tracker.drainNotices())
        .extracting(FaultNotice::kind)
        .containsExactly(FaultNotice.Kind.Notice, FaultNotice.Kind.Notice);
  }

  @Test
  void frequencyEscalationWithAReleaseWindowIsReleasedWhenItPasses() {
    for (int i = 0; i < 5; i++) {
      link(1, false);
      clock.advance(Duration.ofSeconds(2));
      link(1, true);
      clock.advance(Duration.ofMinutes(30));
    }
    assertThat(chip(1).level()).isEqualTo(FaultLevel.MANUALLY_SEPARATE_NPU);
    clock.advance(Duration.ofSeconds(172800));
    assertThat(chip(1)).isEqualTo(ChipHealth.normal(1));
    assertThat(tracker.manualSeparation()).isEmpty();
  }

  @Test
  void linkDownLasting20sRaisesNetworkToPreSeparateUntil60sAfterRecovery() {
    link(0, false);
    assertThat(chip(0).networkLevel()).isEqualTo(FaultLevel.NOT_HANDLE_FAULT);
    assertThat(chip(0).networkHealthy()).isTrue();
    clock.advance(Duration.ofSeconds(19));
    assertThat(chip(0).networkHealthy()).isTrue();
    clock.advance(Duration.ofSeconds(1));
    ChipHealth down = chip(0);
    assertThat(down.networkHealthy()).isFalse();
    assertThat(down.networkLevel()).isEqualTo(FaultLevel.PRE_SEPARATE_NPU);
    assertThat(down.networkReason())
        .isEqualTo(
            "81078603 NotHandleFault (link), 81078603 raised to PreSeparateNPU by FaultDuration");
    assertThat(down.healthy()).as("chip health is separate from network health").isTrue();
    assertThat(down.level()).isEqualTo(FaultLevel.NORMAL_NPU);

    link(0, true);
    clock.advance(Duration.ofSeconds(59));
    assertThat(chip(0).networkHealthy()).isFalse();
    clock.advance(Duration.ofSeconds(1));
    assertThat(chip(0).networkHealthy()).isTrue();
    assertThat(chip(0).upgrades()).isEmpty();
  }

  @Test
  void linkBouncingDuringRecoveryRestartsTheRecoverTimeout() {
    link(0, false);
    clock.advance(Duration.ofSeconds(25));
    chip(0);
    link(0, true);
    clock.advance(Duration.ofSeconds(30));
    link(0, false);
    clock.advance(Duration.ofSeconds(1));
    link(0, true);
    clock.advance(Duration.ofSeconds(59));
    assertThat(chip(0).networkHealthy()).isFalse();
    clock.advance(Duration.ofSeconds(1));
    assertThat(chip(0).networkHealthy()).isTrue();
  }

  @Test
  void preSeparateAndFreeRestartKeepAChipInUseHealthy() {
    poll(1, "8C0E4E00");
    assertThat(chip(1, true).healthy()).isTrue();
    assertThat(chip(1, false).healthy()).isFalse();
    assertThat(chip(1, false).level().needsReset()).isTrue();
  }

  @Test
  void resettingChipIsUnhealthyAndResetClearsItsFaults() {
    poll(3, "40F84E00");
    ChipHealth r = tracker.evaluate(Set.of(3), l -> false, Set.of(3)).get(3);
    assertThat(r.resetting()).isTrue();
    assertThat(r.healthy()).isFalse();
    tracker.resetDone(3);
    assertThat(chip(3)).isEqualTo(ChipHealth.normal(3));
  }

  @Test
  void aNewConfigurationRegradesActiveFaults() {
    poll(0, "80E01801");
    assertThat(chip(0).level()).isEqualTo(FaultLevel.RESTART_BUSINESS);
    tracker.configure(
        new FaultConfig(
            FaultCodeTable.parse("cm", "{\"SubHealthFaultCodes\":[\"80e01801\"]}", 0),
            FaultCustomization.NONE,
            "cm"));
    assertThat(chip(0).level()).isEqualTo(FaultLevel.SUB_HEALTH_FAULT);
    assertThat(chip(0).healthy()).isTrue();
  }
}
