package io.vnpu.dcmi.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.fault.FaultConfigs;
import io.vnpu.api.fault.FaultTracker;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.ChipReading;
import io.vnpu.api.health.ChipUsage;
import io.vnpu.api.health.FaultCode;
import io.vnpu.api.health.FaultLevel;
import io.vnpu.api.health.FaultNotifier;
import io.vnpu.api.health.ManualSeparationStore;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.SimNodeAccess;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DcmiFaultProbeTest {
  @TempDir Path root;

  @Test
  void pollingSeesInjectedCodesCardDropAndRecovery() {
    SimNodeAccess node = new SimNodeAccess("910B3x8", root);
    try (DcmiDeviceManager manager = node.open()) {
      DcmiFaultProbe probe = new DcmiFaultProbe(manager.dcmi(), Clock.systemUTC());
      assertThat(probe.chips()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
      assertThat(probe.read(2)).isEqualTo(ChipReading.of(Set.of(), Optional.of(true)));

      node.ctl("fault", "2", "0x80e01801");
      node.ctl("fault", "2", "0x8C2FA009");
      assertThat(probe.read(2).activeCodes())
          .containsExactlyInAnyOrder(FaultCode.parse("80E01801"), FaultCode.parse("8c2fa009"));
      node.ctl("drop", "3");
      assertThat(probe.read(3)).isEqualTo(ChipReading.dropped());
      assertThat(probe.read(9).error()).contains("no chip with logic ID 9");

      HealthMonitor monitor =
          new HealthMonitor(
              probe,
              new FaultTracker(FaultConfigs.shippedDefault(), Clock.systemUTC()),
              ManualSeparationStore.inMemory(),
              ChipUsage.NONE,
              FaultNotifier.NONE,
              Duration.ofSeconds(1));
      ChipHealth two = monitor.pollOnce().get(2);
      assertThat(two.healthy()).isFalse();
      assertThat(two.level()).isEqualTo(FaultLevel.RESTART_BUSINESS);
      assertThat(two.reason())
          .isEqualTo("80E01801 RestartBusiness (poll), 8C2FA009 NotHandleFault (poll)");
      assertThat(monitor.chip(3).level()).isEqualTo(FaultLevel.RESTART_NPU);
      assertThat(monitor.chip(3).faults())
          .extracting(f -> f.code().hex())
          .containsExactly("40F84E00");

      node.ctl("clear", "2");
      node.ctl("restore", "3");
      assertThat(monitor.pollOnce().values()).allMatch(ChipHealth::healthy);
    }
  }

  @Test
  void eventsArriveThroughTheSubscriptionCallbackAndMakeTheChipUnhealthyBeforeAnyPoll()
      throws Exception {
    SimNodeAccess node = new SimNodeAccess("910B3x8", root);
    try (DcmiDeviceManager manager = node.open()) {
      DcmiFaultProbe probe = new DcmiFaultProbe(manager.dcmi(), Clock.systemUTC());
      java.util.concurrent.BlockingQueue<io.vnpu.api.health.FaultEvent> got =
          new java.util.concurrent.LinkedBlockingQueue<>();
      assertThat(probe.subscribe(got::add)).isTrue();
      node.ctl("event", "4", "0x80e18005", "1", "3");
      io.vnpu.api.health.FaultEvent e = got.poll(10, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(e).isNotNull();
      assertThat(e.logicId()).isEqualTo(4);
      assertThat(e.code()).isEqualTo(FaultCode.parse("80E18005"));
      assertThat(e.assertion()).isEqualTo(io.vnpu.api.health.Assertion.OCCURRED);
      assertThat(e.severity()).isEqualTo(3);
      assertThat(e.origin()).isEqualTo(io.vnpu.api.health.FaultOrigin.EVENT);
      node.ctl("event", "4", "0x80E18005", "0");
      assertThat(got.poll(10, java.util.concurrent.TimeUnit.SECONDS).assertion())
          .isEqualTo(io.vnpu.api.health.Assertion.RECOVERED);
    }
  }

  @Test
  void a310PHostHasNoSubscriptionAndPollsOnly() {
    SimNodeAccess node = new SimNodeAccess("310P3x4", root);
    try (DcmiDeviceManager manager = node.open()) {
      assertThat(new DcmiFaultProbe(manager.dcmi(), Clock.systemUTC()).subscribe(e -> {}))
          .isFalse();
    }
  }

  @Test
  void linkDownIsReadFromNetworkHealth() {
    SimNodeAccess node = new SimNodeAccess("910B3x8", root);
    try (DcmiDeviceManager manager = node.open()) {
      DcmiFaultProbe probe = new DcmiFaultProbe(manager.dcmi(), Clock.systemUTC());
      node.ctl("link", "6", "down");
      assertThat(probe.read(6).linkUp()).contains(false);
      assertThat(probe.read(5).linkUp()).contains(true);
    }
  }

  @Test
  void aBlockingNetworkHealthCallIsBoundedAndHoldsNoOtherCallUp() {
    SimNodeAccess node = new SimNodeAccess("910B3x8", root);
    try (DcmiDeviceManager manager = node.open()) {
      DcmiFaultProbe probe = new DcmiFaultProbe(manager.dcmi(), Clock.systemUTC());
      node.ctl("net-block", "2", "20000");
      node.ctl("fault", "2", "0x80E01801");
      long start = System.nanoTime();
      ChipReading r = probe.read(2);
      assertThat(r.activeCodes()).containsExactly(FaultCode.parse("80E01801"));
      assertThat(r.linkUp()).as("link status unknown while the call blocks").isEmpty();
      assertThat(probe.read(2).linkUp()).as("no second call behind the blocked one").isEmpty();
      assertThat(probe.read(1).linkUp()).contains(true);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
      probe.close();
    }
  }
}
