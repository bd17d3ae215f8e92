package io.vnpu.kube.hami;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.kube.hami.cleanup.IdleVnpuCleaner;
import io.vnpu.kube.hami.cleanup.LiveAllocations;
import io.vnpu.kube.hami.cleanup.LiveAllocationsUnavailableException;
import io.vnpu.kube.hami.cleanup.VnpuIdleTracker;
import io.vnpu.kube.hami.cleanup.VnpuKey;
import io.vnpu.kube.hami.devices.NodeDevices;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Idle hard-vNPU cleanup with a grace period (spec section 6.4, bug 9.5). */
class IdleVnpuCleanerTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2026-07-24T10:00:00Z"));
  private final FakeDeviceManager dm =
      new FakeDeviceManager(
          List.of(FakeDeviceManager.npu("U0", 0, 0), FakeDeviceManager.npu("U1", 1, 1)));
  private final VnpuIdleTracker tracker = new VnpuIdleTracker();

  /** What the live pods hold; null = the source is unreachable. */
  private final AtomicReference<LiveAllocations.Holders> holders =
      new AtomicReference<>(new LiveAllocations.Holders(Set.of(), Set.of()));

  private final LiveAllocations live =
      () -> {
        LiveAllocations.Holders h = holders.get();
        if (h == null)
          throw new LiveAllocationsUnavailableException("API server unreachable", null);
        return h;
      };
  private final IdleVnpuCleaner cleaner =
      new IdleVnpuCleaner(
          dm, () -> new NodeDevices(dm.discover()), tracker, live, clock, Duration.ofMinutes(10));

  @Test
  void aVnpuOfALivePodIsKeptThoughDcmiSaysIdle() {
    // a Running pod's sidecar or warm standby has not opened its vNPU yet
    VnpuKey key = new VnpuKey(0, 100, "vir05_1c_16g");
    dm.addVnpu(0, 100, "vir05_1c_16g", false);
    tracker.created(key, clock.instant(), "pod-a");
    holders.set(new LiveAllocations.Holders(Set.of("pod-a"), Set.of("U0")));
    clock.advance(Duration.ofHours(3));
    assertThat(cleaner.runOnce()).isEmpty();
    // the pod ends: its vNPU is idle from now on, and goes after the grace period
    holders.set(new LiveAllocations.Holders(Set.of("pod-b"), Set.of("U0")));
    assertThat(cleaner.runOnce()).isEmpty();
    clock.advance(Duration.ofMinutes(9));
    assertThat(cleaner.runOnce()).isEmpty();
    clock.advance(Duration.ofMinutes(1));
    assertThat(cleaner.runOnce()).containsExactly(key);
    assertThat(tracker.owner(key)).isEmpty();
  }

  @Test
  void aVnpuOfUnknownOwnerIsKeptWhileALivePodHoldsItsNpu() {
    // created before an agent restart: no owner recorded, but a live pod holds NPU U1
    dm.addVnpu(1, 116, "vir10_3c_32g", false);
    dm.addVnpu(0, 100, "vir05_1c_16g", false);
    holders.set(new LiveAllocations.Holders(Set.of("pod-a"), Set.of("U1")));
    assertThat(cleaner.runOnce()).isEmpty();
    clock.advance(Duration.ofMinutes(10));
    assertThat(cleaner.runOnce()).containsExactly(new VnpuKey(0, 100, "vir05_1c_16g"));
    assertThat(dm.listVnpus(1)).extracting(v -> v.vnpuId()).containsExactly(116);
  }

  @Test
  void nothingIsDestroyedWhileTheLiveAllocationsCannotBeRead() {
    dm.addVnpu(0, 100, "vir05_1c_16g", false);
    assertThat(cleaner.runOnce()).isEmpty(); // idle since now
    holders.set(null);
    clock.advance(Duration.ofHours(1));
    assertThat(cleaner.runOnce()).isEmpty();
    assertThat(cleaner.runOnce()).isEmpty();
    assertThat(dm.listVnpus(0)).hasSize(1);
    holders.set(new LiveAllocations.Holders(Set.of(), Set.of()));
    assertThat(cleaner.runOnce()).containsExactly(new VnpuKey(0, 100, "vir05_1c_16g"));
  }

  @Test
  void destroysOnlyVnpusIdleForTheWholeGracePeriod() {
    dm.addVnpu(0, 100, "vir05_1c_16g", false); // left over after a reboot
    dm.addVnpu(0, 101, "vir05_1c_16g", true); // running container
    assertThat(cleaner.runOnce()).isEmpty();
    clock.advance(Duration.ofMinutes(9));
    assertThat(cleaner.runOnce()).isEmpty();
    clock.advance(Duration.ofMinutes(1));
    assertThat(cleaner.runOnce()).containsExactly(new VnpuKey(0, 100, "vir05_1c_16g"));
    assertThat(dm.listVnpus(0)).extracting(v -> v.vnpuId()).containsExactly(101);
  }

  @Test
  void freshlyCreatedVnpuOfAStartingContainerSurvives() {
    // created by Allocate; the container is still pulling its image
    dm.addVnpu(1, 116, "vir10_3c_32g", false);
    tracker.created(new VnpuKey(1, 116, "vir10_3c_32g"), clock.instant());
    clock.advance(Duration.ofMinutes(5));
    assertThat(cleaner.runOnce()).isEmpty();
    // the container starts and uses it, then exits
    dm.setInUse(1, 116, true);
    clock.advance(Duration.ofMinutes(30));
    assertThat(cleaner.runOnce()).isEmpty();
    dm.setInUse(1, 116, false);
    clock.advance(Duration.ofMinutes(1));
    assertThat(cleaner.runOnce()).isEmpty();
    clock.advance(Duration.ofMinutes(10));
    assertThat(cleaner.runOnce()).containsExactly(new VnpuKey(1, 116, "vir10_3c_32g"));
    assertThat(tracker.size()).isZero();
  }

  @Test
  void vnpuOfAContainerThatNeverStartedIsReclaimedAfterGrace() {
    dm.addVnpu(0, 100, "vir05_1c_16g", false);
    tracker.created(new VnpuKey(0, 100, "vir05_1c_16g"), clock.instant());
    clock.advance(Duration.ofMinutes(10));
    assertThat(cleaner.runOnce()).containsExactly(new VnpuKey(0, 100, "vir05_1c_16g"));
  }

  @Test
  void reusedIdIsANewVnpuAndVanishedOnesAreForgotten() {
    dm.addVnpu(0, 100, "vir05_1c_16g", false);
    cleaner.runOnce();
    assertThat(tracker.idleSince(new VnpuKey(0, 100, "vir05_1c_16g"))).contains(clock.instant());
    dm.destroyVnpu(0, 100);
    clock.advance(Duration.ofMinutes(9));
    dm.addVnpu(0, 100, "vir10_3c_32g", false);
    cleaner.runOnce();
    assertThat(tracker.idleSince(new VnpuKey(0, 100, "vir05_1c_16g"))).isEmpty();
    clock.advance(Duration.ofMinutes(2));
    assertThat(cleaner.runOnce()).isEmpty();
  }

  @Test
  void orphansNextToABoundPodAreReclaimedAfterTheGracePeriod() {
    // pod-a holds one vir05 on U0, created for it by this agent; three orphans of a crash or an
    // older agent lie next to it
    dm.addVnpu(0, 100, "vir05_1c_16g", false);
    tracker.created(new VnpuKey(0, 100, "vir05_1c_16g"), clock.instant(), "pod-a");
    dm.addVnpu(0, 101, "vir05_1c_16g", false);
    dm.addVnpu(0, 102, "vir05_1c_16g", false);
    dm.addVnpu(0, 103, "vir10_3c_32g", false);
    holders.set(
        new LiveAllocations.Holders(
            Set.of("pod-a"), Set.of(), Map.of("U0", Map.of("vir05_1c_16g", 1))));
    assertThat(cleaner.runOnce()).isEmpty();
    clock.advance(Duration.ofMinutes(10));
    assertThat(cleaner.runOnce())
        .containsExactlyInAnyOrder(
            new VnpuKey(0, 101, "vir05_1c_16g"),
            new VnpuKey(0, 102, "vir05_1c_16g"),
            new VnpuKey(0, 103, "vir10_3c_32g"));
    assertThat(dm.listVnpus(0)).extracting(v -> v.vnpuId()).containsExactly(100);
  }

  @Test
  void aSurplusTemplateIsReclaimedNextToPodsHoldingOthersAfterARestart() {
    // after an agent restart no owner is known: pods hold one vir05 and one vir10 on U1
    dm.addVnpu(1, 116, "vir05_1c_16g", false);
    dm.addVnpu(1, 117, "vir05_1c_16g", false);
    dm.addVnpu(1, 118, "vir10_3c_32g", false);
    holders.set(
        new LiveAllocations.Holders(
            Set.of("pod-a", "pod-b"),
            Set.of(),
            Map.of("U1", Map.of("vir05_1c_16g", 1, "vir10_3c_32g", 1))));
    assertThat(cleaner.runOnce()).isEmpty();
    clock.advance(Duration.ofMinutes(9));
    assertThat(cleaner.runOnce()).isEmpty();
    clock.advance(Duration.ofMinutes(1));
    assertThat(cleaner.runOnce()).containsExactly(new VnpuKey(1, 117, "vir05_1c_16g"));
    assertThat(dm.listVnpus(1)).extracting(v -> v.vnpuId()).containsExactly(116, 118);
    // the one in use counts against the need: when 116 is free and 117 is gone, 116 stays
    clock.advance(Duration.ofHours(1));
    assertThat(cleaner.runOnce()).isEmpty();
  }
}
