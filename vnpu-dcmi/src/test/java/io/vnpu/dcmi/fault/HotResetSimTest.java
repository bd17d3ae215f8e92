package io.vnpu.dcmi.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.fault.FaultConfigs;
import io.vnpu.api.fault.FaultTracker;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.fault.HotResetter;
import io.vnpu.api.fault.HotResetter.Outcome;
import io.vnpu.api.fault.HotResetter.Result;
import io.vnpu.api.health.ChipUsage;
import io.vnpu.api.health.FaultLevel;
import io.vnpu.api.health.FaultNotifier;
import io.vnpu.api.health.ManualSeparationStore;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.SimNodeAccess;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hot reset against the simulated driver: idle, busy, ring, whole card, failures. */
class HotResetSimTest {
  @TempDir Path root;

  private final Set<Integer> podsUsing = ConcurrentHashMap.newKeySet();

  private final class Node implements AutoCloseable {
    final SimNodeAccess sim;
    final DcmiDeviceManager manager;
    final HealthMonitor monitor;
    final HotResetter resetter;

    Node(String profile, Duration bootTimeout) {
      sim = new SimNodeAccess(profile, root);
      manager = sim.open();
      DcmiFaultProbe probe = new DcmiFaultProbe(manager.dcmi(), Clock.systemUTC());
      monitor =
          new HealthMonitor(
              probe,
              new FaultTracker(FaultConfigs.shippedDefault(), Clock.systemUTC()),
              ManualSeparationStore.inMemory(),
              podsUsing::contains,
              FaultNotifier.NONE,
              Duration.ofSeconds(1));
      ChipUsage pods = podsUsing::contains;
      resetter =
          new HotResetter(
              monitor,
              new DcmiChipResetter(manager.dcmi(), probe),
              pods,
              Clock.systemUTC(),
              d -> Thread.sleep(d.toMillis()),
              bootTimeout,
              Duration.ofMillis(20),
              2);
      sim.ctl("boot-ms", "150");
    }

    String chipLine(int logic) {
      return sim.ctl("show-faults")
          .lines()
          .filter(l -> l.startsWith("logic=" + logic + " "))
          .findFirst()
          .orElseThrow();
    }

    @Override
    public void close() {
      manager.close();
    }
  }

  @Test
  void idleChipIsResetAndHealthyAgainBusyChipIsNot() {
    try (Node n = new Node("310P3x4", Duration.ofSeconds(10))) {
      n.sim.ctl("fault", "1", "0x40F84E00");
      n.sim.ctl("fault", "2", "0x40F84E00");
      n.sim.ctl("proc", "2", "4242", "1048576");
      n.monitor.pollOnce();
      assertThat(n.monitor.chip(1).level()).isEqualTo(FaultLevel.RESTART_NPU);

      List<Outcome> first = n.resetter.runOnce();
      assertThat(first)
          .containsExactly(
              new Outcome(Set.of(1), Result.RESET, "booted"),
              new Outcome(Set.of(2), Result.BUSY, "1 process(es) on NPU logic 2"));
      assertThat(n.chipLine(1)).isEqualTo("logic=1 link=up boot=16 resets=1 procs= faults=");
      assertThat(n.chipLine(2)).startsWith("logic=2 link=up boot=16 resets=0 ");
      assertThat(n.monitor.chip(1).healthy()).isTrue();
      assertThat(n.monitor.pollOnce().get(1).healthy()).isTrue();

      n.sim.ctl("proc-clear", "2");
      podsUsing.add(2);
      assertThat(n.resetter.runOnce())
          .containsExactly(
              new Outcome(Set.of(2), Result.BUSY, "NPU logic 2 is allocated to a container"));
      assertThat(n.chipLine(2)).contains(" resets=0 ");
    }
  }

  @Test
  void ringResetWaitsForTheWholeRingToBeIdle() {
    try (Node n = new Node("910B3x8", Duration.ofSeconds(10))) {
      n.sim.ctl("fault", "2", "0x40F84E00");
      n.sim.ctl("proc", "5", "77");
      n.monitor.pollOnce();
      assertThat(n.resetter.runOnce())
          .containsExactly(
              new Outcome(
                  Set.of(0, 1, 2, 3, 4, 5, 6, 7), Result.BUSY, "1 process(es) on NPU logic 5"));
      assertThat(n.chipLine(2)).contains(" resets=0 ");
      n.sim.ctl("proc-clear", "5");
      assertThat(n.resetter.runOnce()).extracting(Outcome::result).containsExactly(Result.RESET);
      for (int logic = 0; logic < 8; logic++) assertThat(n.chipLine(logic)).contains(" resets=1 ");
      assertThat(n.monitor.pollOnce().get(2).healthy()).isTrue();
    }
  }

  @Test
  void duoCardResetsBothChipsWithOneCall() {
    try (Node n = new Node("300I-Duo x2", Duration.ofSeconds(10))) {
      n.sim.ctl("fault", "3", "0x40F84E00");
      n.monitor.pollOnce();
      assertThat(n.resetter.runOnce())
          .containsExactly(new Outcome(Set.of(2, 3), Result.RESET, "booted"));
      assertThat(n.chipLine(2)).contains(" resets=1 ");
      assertThat(n.chipLine(3)).contains(" resets=1 ");
      assertThat(n.chipLine(0)).contains(" resets=0 ");
    }
  }

  @Test
  void aChipThatNeverBootsFailsAfterTheBoundAndIsGivenUpAfterTwoFailures() {
    try (Node n = new Node("310P3x4", Duration.ofMillis(400))) {
      n.sim.ctl("fault", "0", "0x40F84E00");
      n.sim.ctl("reset-hang", "0", "1");
      n.monitor.pollOnce();
      long start = System.nanoTime();
      List<Outcome> out = n.resetter.runOnce();
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
      assertThat(out)
          .singleElement()
          .satisfies(
              o -> {
                assertThat(o.result()).isEqualTo(Result.FAILED);
                assertThat(o.detail()).isEqualTo("not booted within 400 ms: boot status {0=1}");
              });
      n.sim.ctl("fault", "0", "0x40F84E00"); // the driver cleared it with the reset; still broken
      n.sim.ctl("reset-hang", "0", "0");
      n.sim.ctl("reset-fail", "0", "1");
      n.monitor.pollOnce();
      assertThat(n.resetter.runOnce())
          .singleElement()
          .satisfies(
              o -> {
                assertThat(o.result()).isEqualTo(Result.FAILED);
                assertThat(o.detail()).startsWith("reset refused: ").contains("-8015");
              });
      assertThat(n.resetter.runOnce())
          .containsExactly(
              new Outcome(
                  Set.of(0), Result.GAVE_UP, "2 failed resets: not tried again until restart"));
    }
  }

  @Test
  void aFaultThatComesBackAfterEveryResetIsGivenUpAfterTwoResets() {
    try (Node n = new Node("310P3x4", Duration.ofSeconds(10))) {
      for (int i = 0; i < 2; i++) {
        n.sim.ctl("fault", "1", "0x40F84E00");
        n.monitor.pollOnce();
        assertThat(n.resetter.runOnce()).extracting(Outcome::result).containsExactly(Result.RESET);
      }
      n.sim.ctl("fault", "1", "0x40F84E00");
      n.monitor.pollOnce();
      assertThat(n.resetter.runOnce())
          .containsExactly(
              new Outcome(
                  Set.of(1),
                  Result.GAVE_UP,
                  "2 resets in a row and the fault came back: not tried again until the chip is well"));
      assertThat(n.chipLine(1)).contains(" resets=2 ");
      // well again for a round: the count starts over
      n.sim.ctl("clear", "1");
      n.monitor.pollOnce();
      assertThat(n.resetter.runOnce()).isEmpty();
      n.sim.ctl("fault", "1", "0x40F84E00");
      n.monitor.pollOnce();
      assertThat(n.resetter.runOnce()).extracting(Outcome::result).containsExactly(Result.RESET);
    }
  }
}
