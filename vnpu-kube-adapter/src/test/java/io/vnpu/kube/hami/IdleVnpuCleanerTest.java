package io.vnpu.kube.hami;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.kube.hami.cleanup.IdleVnpuCleaner;
import io.vnpu.kube.hami.cleanup.VnpuIdleTracker;
import io.vnpu.kube.hami.cleanup.VnpuKey;
import io.vnpu.kube.hami.devices.NodeDevices;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Idle hard-vNPU cleanup with a grace period (spec section 6.4, bug 9.5). */
class IdleVnpuCleanerTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2026-07-24T10:00:00Z"));
  private final FakeDeviceManager dm = new FakeDeviceManager(List.of(FakeDeviceManager.npu("U0", 0, 0),
      FakeDeviceManager.npu("U1", 1, 1)));
  private final VnpuIdleTracker tracker = new VnpuIdleTracker();
  private final IdleVnpuCleaner cleaner = new IdleVnpuCleaner(dm, () -> new NodeDevices(dm.discover()), tracker,
      clock, Duration.ofMinutes(10));

  @Test
  void destroysOnlyVnpusIdleForTheWholeGracePeriod() {
    dm.addVnpu(0, 100, "vir05_1c_16g", false); // left over after a reboot
    dm.addVnpu(0, 101, "vir05_1c_16g", true);  // running container
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
}
