package io.vnpu.dcmi.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.fault.FaultConfigs;
import io.vnpu.api.fault.FaultTracker;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.fault.recovery.RankEntry;
import io.vnpu.api.fault.recovery.RecoveryRecord;
import io.vnpu.api.fault.recovery.RecoveryStep;
import io.vnpu.api.fault.recovery.RecoveryStore;
import io.vnpu.api.fault.recovery.ResetInfo;
import io.vnpu.api.fault.recovery.TrainingJob;
import io.vnpu.api.fault.recovery.TrainingRecovery;
import io.vnpu.api.fault.recovery.TrainingRecovery.Bounds;
import io.vnpu.api.health.FaultLevel;
import io.vnpu.api.health.FaultNotifier;
import io.vnpu.api.health.ManualSeparationStore;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.SimNodeAccess;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Training-job recovery ({@code -hotReset=2}) against the simulated driver: the 910B ring of 8 and
 * the A3 server of 16, the job's processes in the driver's process list, resets that fail or hang,
 * a network that stays down, a chip of another job on the ring, and a plugin restart mid-sequence.
 */
class TrainingRecoverySimTest {
  private static final String CARD_DROP = "0x40F84E00"; // RestartNPU in the shipped faultCode.json

  @TempDir Path root;

  /** The job ConfigMaps as the API server would hold them; survives a "plugin restart". */
  static final class MemoryStore implements RecoveryStore {
    final Map<String, Persisted> saved = new ConcurrentHashMap<>();
    final Map<String, List<RankEntry>> faultNpus = new ConcurrentHashMap<>();
    final List<String> steps = new CopyOnWriteArrayList<>();

    @Override
    public Optional<Persisted> load(TrainingJob job) {
      return Optional.ofNullable(saved.get(job.key()));
    }

    @Override
    public void save(TrainingJob job, ResetInfo info, RecoveryRecord record, List<RankEntry> npus) {
      saved.put(job.key(), new Persisted(info, record));
      if (npus != null) faultNpus.put(job.key(), npus);
      steps.add(record.step() + (record.resetIssued() ? "(issued)" : ""));
    }

    ResetInfo info(TrainingJob job) {
      return saved.get(job.key()).info();
    }
  }

  private final Set<Integer> podsUsing = ConcurrentHashMap.newKeySet();
  private final List<TrainingJob> jobs = new CopyOnWriteArrayList<>();
  private final MemoryStore store = new MemoryStore();
  private final List<String> events = new CopyOnWriteArrayList<>();

  private final class Node implements AutoCloseable {
    final SimNodeAccess sim;
    final DcmiDeviceManager manager;
    final HealthMonitor monitor;
    final TrainingRecovery recovery;

    Node(String profile, Bounds bounds) {
      this(new SimNodeAccess(profile, root), bounds);
      sim.ctl("boot-ms", "150");
    }

    /** A plugin (re)started on the same simulated host. */
    Node(SimNodeAccess sim, Bounds bounds) {
      this.sim = sim;
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
      recovery =
          TrainingRecovery.builder()
              .monitor(monitor)
              .resetter(new DcmiChipResetter(manager.dcmi(), probe))
              .usage(podsUsing::contains)
              .jobs(() -> List.copyOf(jobs))
              .store(store)
              .events((job, reason, message, warning) -> events.add(job.name() + " " + reason))
              .bounds(bounds)
              .build();
    }

    int resets(int logic) {
      String line =
          sim.ctl("show-faults")
              .lines()
              .filter(l -> l.startsWith("logic=" + logic + " "))
              .findFirst()
              .orElseThrow();
      return Integer.parseInt(line.replaceAll(".* resets=(\\d+) .*", "$1"));
    }

    /** Health poll and one recovery round, until {@code done} or 10 s. */
    void runUntil(BooleanSupplier done) throws InterruptedException {
      long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (!done.getAsBoolean()) {
        assertThat(System.nanoTime())
            .as("recovery did not get there within 10 s; steps " + store.steps)
            .isLessThan(end);
        monitor.pollOnce();
        recovery.runOnce();
        Thread.sleep(20);
      }
    }

    RecoveryStep step(TrainingJob job) {
      return store.saved.get(job.key()).record().step();
    }

    @Override
    public void close() {
      manager.close();
    }
  }

  private static TrainingJob job(String name, int firstChip, int chips) {
    Map<Integer, Integer> ranks = new TreeMap<>();
    for (int i = 0; i < chips; i++) ranks.put(firstChip + i, i);
    return new TrainingJob("train", name, ranks, Set.of("train/" + name + "-worker-0"));
  }

  private void startJob(Node n, TrainingJob job) {
    jobs.add(job);
    for (int logic : job.ranks().keySet()) {
      podsUsing.add(logic);
      n.sim.ctl("proc", String.valueOf(logic), String.valueOf(4000 + logic), "1048576");
    }
  }

  private static void stopProcesses(Node n, TrainingJob job) {
    for (int logic : job.ranks().keySet()) n.sim.ctl("proc-clear", String.valueOf(logic));
  }

  private static final Bounds QUICK =
      new Bounds(Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(2), 3);

  @Test
  void ringOf8IsResetOnlyAfterTheJobsProcessesAreGoneAndComesBackHealthy() throws Exception {
    try (Node n = new Node("910B3x8", QUICK)) {
      TrainingJob job = job("llama", 0, 8);
      startJob(n, job);
      n.sim.ctl("fault", "2", CARD_DROP);
      n.monitor.pollOnce();
      assertThat(n.monitor.chip(2).level()).isEqualTo(FaultLevel.RESTART_NPU);

      n.recovery.runOnce();
      assertThat(n.step(job)).isEqualTo(RecoveryStep.STOPPING);
      ResetInfo asked = store.info(job);
      assertThat(asked.gracefulExit()).isEqualTo(1);
      assertThat(asked.faultFlushing()).isTrue();
      assertThat(asked.restartFaultProcess()).isFalse();
      assertThat(asked.rankList())
          .extracting(RankEntry::rankId)
          .containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
      assertThat(asked.rankList())
          .allSatisfy(
              r -> {
                assertThat(r.status()).isEqualTo("unrecovered");
                assertThat(r.policy()).isEqualTo("reset");
              });
      assertThat(asked.rankList().get(2).errorCodeHex()).isEqualTo("40F84E00");
      assertThat(asked.rankList().get(2).errorCode()).containsExactly(0x40F84E00L);
      assertThat(store.faultNpus.get(job.key())).extracting(RankEntry::logicId).containsExactly(2);

      // the job's processes are still on the ring: nothing is reset however often the round runs
      for (int i = 0; i < 5; i++) {
        n.monitor.pollOnce();
        n.recovery.runOnce();
      }
      assertThat(IntStream.range(0, 8).map(n::resets)).containsOnly(0);
      assertThat(n.step(job)).isEqualTo(RecoveryStep.STOPPING);

      stopProcesses(n, job); // the job's agent read GracefulExit=1 and stopped training
      n.runUntil(() -> n.step(job) == RecoveryStep.RECOVERED);
      assertThat(IntStream.range(0, 8).map(n::resets)).containsOnly(1);
      assertThat(store.steps)
          .containsExactly(
              "STOPPING", "RESETTING", "RESETTING(issued)", "CHECKING_NETWORK", "RECOVERED");
      ResetInfo done = store.info(job);
      assertThat(done.gracefulExit()).isZero();
      assertThat(done.faultFlushing()).isFalse();
      assertThat(done.rankList()).extracting(RankEntry::status).containsOnly("recovered");
      n.monitor.pollOnce();
      assertThat(IntStream.range(0, 8).mapToObj(l -> n.monitor.chip(l).healthy()))
          .containsOnly(true);
      assertThat(events)
          .containsExactly(
              "llama FaultRecoveryStarted",
              "llama RingResetStarted",
              "llama RingBooted",
              "llama FaultRecovered");
    }
  }

  @Test
  void a3ResetsAll16ChipsOfTheServer() throws Exception {
    try (Node n = new Node("A3x8", QUICK)) {
      TrainingJob job = job("pangu", 0, 16);
      startJob(n, job);
      n.sim.ctl("fault", "11", CARD_DROP);
      n.monitor.pollOnce();
      n.recovery.runOnce();
      assertThat(store.saved.get(job.key()).record().ring()).hasSize(16);
      for (int i = 0; i < 5; i++) { // the job's processes are still on the dies: no reset yet
        n.monitor.pollOnce();
        n.recovery.runOnce();
      }
      assertThat(n.step(job)).isEqualTo(RecoveryStep.STOPPING);
      assertThat(IntStream.range(0, 16).map(n::resets)).containsOnly(0);
      stopProcesses(n, job);
      n.runUntil(() -> n.step(job) == RecoveryStep.RECOVERED);
      assertThat(IntStream.range(0, 16).map(n::resets)).containsOnly(1);
      assertThat(store.steps)
          .containsExactly(
              "STOPPING", "RESETTING", "RESETTING(issued)", "CHECKING_NETWORK", "RECOVERED");
      assertThat(store.info(job).rankList())
          .hasSize(16)
          .extracting(RankEntry::status)
          .containsOnly("recovered");
      assertThat(IntStream.range(0, 16).mapToObj(l -> n.monitor.chip(l).healthy()))
          .containsOnly(true);
    }
  }

  @Test
  void aChipOfAnotherJobIsNeverResetTheFaultyChipIsIsolatedAtTheBound() throws Exception {
    Bounds shortWait =
        new Bounds(Duration.ofMillis(600), Duration.ofSeconds(5), Duration.ofSeconds(2), 3);
    try (Node n = new Node("A3x8", shortWait)) {
      TrainingJob mine = job("mine", 0, 8);
      TrainingJob other = job("other", 8, 8);
      startJob(n, mine);
      startJob(n, other);
      n.sim.ctl("fault", "3", CARD_DROP);
      n.monitor.pollOnce();
      n.recovery.runOnce();
      stopProcesses(n, mine);
      long start = System.nanoTime();
      n.runUntil(() -> n.step(mine) == RecoveryStep.ISOLATED);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
      assertThat(store.saved.get(mine.key()).record().detail())
          .contains("held by another workload");
      assertThat(IntStream.range(0, 16).map(n::resets)).containsOnly(0);
      assertThat(store.saved).doesNotContainKey(other.key());
      n.monitor.pollOnce();
      assertThat(n.monitor.chip(3).level()).isEqualTo(FaultLevel.MANUALLY_SEPARATE_NPU);
      assertThat(n.monitor.chip(9).healthy()).isTrue();
      assertThat(store.info(mine).rankList())
          .filteredOn(r -> r.logicId() == 3)
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.status()).isEqualTo("failed");
                assertThat(r.policy()).isEqualTo("isolate");
              });
    }
  }

  @Test
  void processesThatNeverLeaveAreIsolatedWithinTheBound() throws Exception {
    Bounds shortWait =
        new Bounds(Duration.ofMillis(500), Duration.ofSeconds(5), Duration.ofSeconds(2), 3);
    try (Node n = new Node("910B3x8", shortWait)) {
      TrainingJob job = job("stuck", 0, 8);
      startJob(n, job);
      n.sim.ctl("fault", "5", CARD_DROP);
      n.runUntil(() -> store.saved.containsKey(job.key()) && n.step(job) == RecoveryStep.ISOLATED);
      assertThat(store.saved.get(job.key()).record().detail())
          .startsWith("not stopped within 500 ms: 1 process(es) still on NPU logic 0");
      assertThat(IntStream.range(0, 8).map(n::resets)).containsOnly(0);
    }
  }

  @Test
  void aRefusedResetEscalatesToIsolation() throws Exception {
    try (Node n = new Node("910B3x8", QUICK)) {
      TrainingJob job = job("refused", 0, 8);
      startJob(n, job);
      n.sim.ctl("fault", "1", CARD_DROP);
      n.sim.ctl("reset-fail", "0", "1");
      n.monitor.pollOnce();
      n.recovery.runOnce();
      stopProcesses(n, job);
      n.runUntil(() -> n.step(job) == RecoveryStep.ISOLATED);
      assertThat(store.saved.get(job.key()).record().detail())
          .contains("refused")
          .contains("-8015");
      n.monitor.pollOnce();
      assertThat(n.monitor.chip(1).level()).isEqualTo(FaultLevel.MANUALLY_SEPARATE_NPU);
      assertThat(events).last().isEqualTo("refused FaultRecoveryFailed");
    }
  }

  @Test
  void aHangingResetEscalatesWithinTheDeviceResetBound() throws Exception {
    Bounds quickReset =
        new Bounds(Duration.ofSeconds(5), Duration.ofMillis(700), Duration.ofSeconds(2), 3);
    try (Node n = new Node("910B3x8", quickReset)) {
      TrainingJob job = job("hang", 0, 8);
      startJob(n, job);
      n.sim.ctl("fault", "6", CARD_DROP);
      n.sim.ctl("reset-hang", "6", "1");
      n.monitor.pollOnce();
      n.recovery.runOnce();
      stopProcesses(n, job);
      long start = System.nanoTime();
      n.runUntil(() -> n.step(job) == RecoveryStep.ISOLATED);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
      assertThat(store.saved.get(job.key()).record().detail())
          .startsWith("ring not booted within 700 ms")
          .contains("6=1");
    }
  }

  @Test
  void aNetworkThatStaysDownAfterTheBootEscalates() throws Exception {
    Bounds quickNet =
        new Bounds(Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofMillis(500), 3);
    try (Node n = new Node("910B3x8", quickNet)) {
      TrainingJob job = job("net", 0, 8);
      startJob(n, job);
      n.sim.ctl("fault", "4", CARD_DROP);
      n.monitor.pollOnce();
      n.recovery.runOnce();
      stopProcesses(n, job);
      n.runUntil(() -> n.step(job) == RecoveryStep.CHECKING_NETWORK);
      n.sim.ctl("link", "7", "down");
      n.runUntil(() -> n.step(job) == RecoveryStep.ISOLATED);
      assertThat(store.saved.get(job.key()).record().detail())
          .startsWith("network of NPU logic [7] not healthy");
    }
  }

  @Test
  void aPluginRestartedMidSequenceResumesTheBootWaitAndFinishes() throws Exception {
    SimNodeAccess host = new SimNodeAccess("910B3x8", root);
    TrainingJob job = job("resume", 0, 8);
    try (Node first = new Node(host, QUICK)) {
      host.ctl("boot-ms", "1500");
      startJob(first, job);
      host.ctl("fault", "0", CARD_DROP);
      first.monitor.pollOnce();
      first.recovery.runOnce();
      stopProcesses(first, job);
      first.runUntil(
          () ->
              first.step(job) == RecoveryStep.RESETTING
                  && store.saved.get(job.key()).record().resetIssued());
    } // the plugin dies while the ring boots
    try (Node second = new Node(host, QUICK)) {
      second.runUntil(() -> second.step(job) == RecoveryStep.RECOVERED);
      assertThat(IntStream.range(0, 8).map(second::resets)).containsOnly(1); // not reset twice
      assertThat(store.steps)
          .containsExactly(
              "STOPPING", "RESETTING", "RESETTING(issued)", "CHECKING_NETWORK", "RECOVERED");
    }
  }

  @Test
  void aPluginRestartedWhileTheJobStopsResumesTheWaitAndResetsOnlyAfterTheProcessesAreGone()
      throws Exception {
    SimNodeAccess host = new SimNodeAccess("910B3x8", root);
    TrainingJob job = job("stopping", 0, 8);
    try (Node first = new Node(host, QUICK)) {
      startJob(first, job);
      host.ctl("fault", "4", CARD_DROP);
      first.runUntil(() -> store.saved.containsKey(job.key()));
      assertThat(first.step(job)).isEqualTo(RecoveryStep.STOPPING);
    } // the plugin dies while the job's processes are still on the ring
    try (Node second = new Node(host, QUICK)) {
      for (int i = 0; i < 5; i++) {
        second.monitor.pollOnce();
        second.recovery.runOnce();
        Thread.sleep(20);
      }
      assertThat(second.step(job)).isEqualTo(RecoveryStep.STOPPING);
      assertThat(IntStream.range(0, 8).map(second::resets)).containsOnly(0);
      stopProcesses(second, job);
      second.runUntil(() -> second.step(job) == RecoveryStep.RECOVERED);
      assertThat(IntStream.range(0, 8).map(second::resets)).containsOnly(1);
      assertThat(store.steps)
          .containsExactly(
              "STOPPING", "RESETTING", "RESETTING(issued)", "CHECKING_NETWORK", "RECOVERED");
    }
  }

  @Test
  void aWaitWhoseFaultClearedWhileNoPluginRanIsAbandonedCleanly() throws Exception {
    SimNodeAccess host = new SimNodeAccess("910B3x8", root);
    TrainingJob job = job("cleared", 0, 8);
    try (Node first = new Node(host, QUICK)) {
      startJob(first, job);
      host.ctl("fault", "6", CARD_DROP);
      first.runUntil(() -> store.saved.containsKey(job.key()));
      assertThat(store.info(job).gracefulExit()).isEqualTo(1);
    }
    host.ctl("clear", "6"); // the card came back while no plugin ran
    try (Node second = new Node(host, QUICK)) {
      second.runUntil(() -> second.step(job).terminal());
      assertThat(second.step(job)).isEqualTo(RecoveryStep.ABANDONED);
      ResetInfo left = store.info(job);
      assertThat(left.gracefulExit()).isZero();
      assertThat(left.faultFlushing()).isFalse();
      assertThat(left.rankList()).extracting(RankEntry::status).containsOnly("recovered");
      assertThat(IntStream.range(0, 8).map(second::resets)).containsOnly(0);
      assertThat(IntStream.range(0, 8).mapToObj(l -> second.monitor.chip(l).healthy()))
          .containsOnly(true);
      assertThat(events)
          .containsExactly("cleared FaultRecoveryStarted", "cleared FaultRecoveryAbandoned");
      // and a later fault starts a new recovery as usual
      host.ctl("fault", "6", CARD_DROP);
      second.runUntil(() -> second.step(job) == RecoveryStep.STOPPING);
    }
  }

  @Test
  void aFaultThatComesBackAfterEveryRecoveryIsIsolatedAfterTheAttemptBound() throws Exception {
    Bounds twice =
        new Bounds(Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(2), 2);
    try (Node n = new Node("910B3x8", twice)) {
      TrainingJob job = job("flaky", 0, 8);
      jobs.add(job);
      List<RecoveryStep> ends = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        n.sim.ctl("fault", "2", CARD_DROP);
        n.runUntil(
            () ->
                store.saved.containsKey(job.key())
                    && n.step(job).terminal()
                    && store.saved.get(job.key()).record().attempt() == ends.size() + 1);
        ends.add(n.step(job));
      }
      assertThat(ends)
          .containsExactly(RecoveryStep.RECOVERED, RecoveryStep.RECOVERED, RecoveryStep.ISOLATED);
      assertThat(new HashMap<>(Map.of("resets", n.resets(2)))).containsEntry("resets", 2);
    }
  }

  @Test
  void aRecordForgedByTheJobsOwnerNeitherResetsAnotherJobsChipsNorSeparatesAHealthyChip()
      throws Exception {
    try (Node n = new Node("A3x8", QUICK)) {
      TrainingJob mine = job("mine", 0, 8);
      TrainingJob other = job("other", 8, 8);
      startJob(n, mine);
      startJob(n, other);
      stopProcesses(n, mine);
      // the tenant edits its own reset-config: "reset already decided" for the whole server
      Set<Integer> all = new java.util.TreeSet<>();
      for (int i = 0; i < 16; i++) all.add(i);
      store.saved.put(
          mine.key(),
          new RecoveryStore.Persisted(
              new ResetInfo(List.of(), 0, 1, true, 1, false),
              new RecoveryRecord(
                  RecoveryStep.RESETTING,
                  all,
                  Set.of(3),
                  java.time.Instant.now().plusSeconds(3600),
                  false,
                  1,
                  "forged")));
      for (int i = 0; i < 10; i++) {
        n.monitor.pollOnce();
        n.recovery.runOnce();
        Thread.sleep(20);
      }
      assertThat(IntStream.range(0, 16).map(n::resets)).containsOnly(0);
      assertThat(n.monitor.chip(3).level()).isEqualTo(FaultLevel.NORMAL_NPU);
      // nothing to reset: the forged wait is answered by withdrawing it, nothing else
      assertThat(store.steps).containsExactly("ABANDONED");
      assertThat(store.info(mine).gracefulExit()).isZero();

      // a genuine fault on the shared ring: still never a reset of the other job's chips
      n.sim.ctl("fault", "3", CARD_DROP);
      n.runUntil(() -> store.steps.contains("ISOLATED"));
      assertThat(IntStream.range(0, 16).map(n::resets)).containsOnly(0);
    }
  }
}
