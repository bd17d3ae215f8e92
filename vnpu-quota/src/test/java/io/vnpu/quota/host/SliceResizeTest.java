package io.vnpu.quota.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.PolicyFlag;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.model.SizedBy;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.registry.ComputeRegistries;
import io.vnpu.quota.registry.ComputeRegistry;
import io.vnpu.quota.registry.RegistryEntry;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live resize through the SDK: the region (what the limiters re-read), the compute-registry entry
 * (what neighbours count) and the record change together; what may not be resized is refused with
 * one line and nothing changes. The limiter's side (usage never above max(old, new), the share
 * following within a bound) is native/limiter/tests/test_resize.c; a running npu-burn is
 * SliceResizeIT (cli).
 */
class SliceResizeTest {
  private static final long MIB = 1L << 20;

  @TempDir Path tmp;

  private static SliceDevice npu(int phy, long memoryBytes, int weight, int cap) {
    return new SliceDevice(
        new NpuRef(phy, "U" + phy),
        new SliceShare.SoftQuota(memoryBytes, weight, cap, Priority.NORMAL));
  }

  private RegistryEntry entry(StateDir state, int phy, long key) throws Exception {
    try (ComputeRegistry reg =
        new ComputeRegistries().open(NpuRegistries.file(state.registry(), phy))) {
      return reg.entries().stream().filter(e -> e.key() == key).findFirst().orElseThrow();
    }
  }

  @Test
  void theOwnerResizesMemoryAndCoreAndEverythingFollows() throws Exception {
    StateDir state = new StateDir(tmp.resolve("state"));
    try (HostSlices slices = new HostSlices(state, new QuotaRegions());
        SliceSession s =
            slices.create(
                new HostSliceRequest("train", 1, npu(1, 1024 * MIB, 50, 50), List.of()))) {
      assertThat(s.region().sizedBy()).isEqualTo(SizedBy.HOST);
      SliceRecord r = s.resize(SliceResize.none().withMemory(512 * MIB).withCore(20));

      DeviceQuota q = s.region().readConfig().devices().get(0);
      assertThat(q.memLimitBytes()).isEqualTo(512 * MIB);
      assertThat(q.computeWeight()).isEqualTo(20);
      assertThat(q.computeCapPct()).isEqualTo(20);
      assertThat(q.physId()).isEqualTo(1);
      assertThat(q.uuid()).isEqualTo("U1");
      assertThat(r).isEqualTo(s.record());
      assertThat(new SliceStore(state).read("train")).contains(r);
      assertThat(r.memoryLimitBytes()).isEqualTo(512 * MIB);
      assertThat(r.weight()).isEqualTo(20);
      assertThat(r.capPct()).isEqualTo(20);
      RegistryEntry e = entry(state, 1, s.epoch());
      assertThat(e.weight()).isEqualTo(20);
      assertThat(e.capPct()).isEqualTo(20);

      // --weight removes the cap (as vnpu run --weight makes a slice); memory is left alone
      s.resize(SliceResize.none().withWeight(300));
      RegionConfig c = s.region().readConfig();
      assertThat(c.policy())
          .isEqualTo(
              Set.of(
                  PolicyFlag.MEM_ENFORCE,
                  PolicyFlag.COMPUTE_ENFORCE,
                  PolicyFlag.COMPUTE_FAIL_OPEN));
      assertThat(c.devices().get(0).computeWeight()).isEqualTo(300);
      assertThat(c.devices().get(0).computeCapPct()).isZero();
      assertThat(c.devices().get(0).memLimitBytes()).isEqualTo(512 * MIB);
      assertThat(entry(state, 1, s.epoch()).weight()).isEqualTo(300);
      assertThat(entry(state, 1, s.epoch()).capPct()).isZero();
    }
  }

  /**
   * The tenant writes its own region (issue 23): what a resize leaves alone comes from the agent's
   * record, never from the region, so a tenant that raised its weight and cap there does not see
   * them copied into the record (vnpu slices, vnpu top) by an admin's --memory.
   */
  @Test
  void aResizeKeepsTheRecordsSizesNotTheTenantsRegion() throws Exception {
    StateDir state = new StateDir(tmp.resolve("state"));
    try (HostSlices slices = new HostSlices(state, new QuotaRegions());
        SliceSession s =
            slices.create(
                new HostSliceRequest("train", 1, npu(1, 1024 * MIB, 50, 50), List.of()))) {
      RegionConfig c = s.region().readConfig();
      DeviceQuota q = c.devices().get(0);
      s.region()
          .updateConfig(
              new RegionConfig(
                  List.of(
                      new DeviceQuota(64L << 30, 10000, 100, q.priority(), q.physId(), q.uuid())),
                  c.policy(),
                  c.registryDir()));

      SliceRecord r = s.resize(SliceResize.none().withMemory(512 * MIB));

      assertThat(r.weight()).isEqualTo(50);
      assertThat(r.capPct()).isEqualTo(50);
      DeviceQuota after = s.region().readConfig().devices().get(0);
      assertThat(after.memLimitBytes()).isEqualTo(512 * MIB);
      assertThat(after.computeWeight()).isEqualTo(50);
      assertThat(after.computeCapPct()).isEqualTo(50);
      RegistryEntry e = entry(state, 1, s.epoch());
      assertThat(e.weight()).isEqualTo(50);
      assertThat(e.capPct()).isEqualTo(50);
    }
  }

  @Test
  void anotherProcessResizesByNameAndUnknownOrGoneSlicesAreOneLine() throws Exception {
    StateDir state = new StateDir(tmp.resolve("state"));
    try (HostSlices owner = new HostSlices(state, new QuotaRegions());
        SliceSession s =
            owner.create(new HostSliceRequest("burn", 0, npu(0, 0, 10, 10), List.of()))) {
      // vnpu slices resize runs in a JVM of its own: its own registry of open regions
      try (HostSlices admin = new HostSlices(state, new QuotaRegions())) {
        SliceRecord r = admin.resize("burn", SliceResize.none().withMemory(2048 * MIB));
        assertThat(r.memoryLimitBytes()).isEqualTo(2048 * MIB);
        assertThat(r.weight()).isEqualTo(10);
        assertThat(s.region().readConfig().devices().get(0).memLimitBytes()).isEqualTo(2048 * MIB);

        assertThatThrownBy(() -> admin.resize("nope", SliceResize.none().withCore(5)))
            .isInstanceOf(SliceResizeException.class)
            .hasMessage("no slice named 'nope' in " + state.root());
        assertThatThrownBy(() -> admin.resize("burn", SliceResize.none()))
            .isInstanceOf(SliceResizeException.class)
            .hasMessage("slice burn: nothing to change (give --memory, --core or --weight)");
      }
    }
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    SliceStore store = new SliceStore(state);
    store.create(
        new SliceRecord("left", 0, 0, 0, 1, 0, Priority.NORMAL, gone.pid(), 0, 0, List.of()));
    try (HostSlices admin = new HostSlices(state, new QuotaRegions())) {
      assertThatThrownBy(() -> admin.resize("left", SliceResize.none().withCore(5)))
          .isInstanceOf(SliceResizeException.class)
          .hasMessage(
              "slice left: its owner (pid "
                  + gone.pid()
                  + ") is gone; remove it with 'vnpu slices rm left'");
    }
  }

  @Test
  void aSliceRemovedWhileBeingResizedIsOneLineAndNotRecreated() throws Exception {
    StateDir state = new StateDir(tmp.resolve("state"));
    try (HostSlices owner = new HostSlices(state, new QuotaRegions());
        SliceSession s =
            owner.create(new HostSliceRequest("race", 0, npu(0, 1024 * MIB, 10, 10), List.of()))) {
      // its owner ends (and removes the region) between the admin's reading the record and opening
      // the region
      java.nio.file.Files.delete(new SliceStore(state).regionFile("race"));
      try (HostSlices admin = new HostSlices(state, new QuotaRegions())) {
        assertThatThrownBy(() -> admin.resize("race", SliceResize.none().withCore(5)))
            .isInstanceOf(SliceResizeException.class)
            .hasMessage(
                "slice race: removed while being resized (its quota region "
                    + new SliceStore(state).regionFile("race")
                    + " is gone); nothing changed");
      }
      assertThat(java.nio.file.Files.exists(new SliceStore(state).regionFile("race"))).isFalse();
    }
  }

  @Test
  void aSliceASchedulerSizedIsRefusedAndNothingChanges() throws Exception {
    StateDir state = new StateDir(tmp.resolve("state"));
    SliceStore store = new SliceStore(state);
    long me = ProcessHandle.current().pid();
    long start = ProcessHandle.current().info().startInstant().orElseThrow().toEpochMilli();
    store.create(
        new SliceRecord("claim", 0, 0, 64 * MIB, 25, 0, Priority.NORMAL, me, start, 0, List.of()));
    // what the DRA plugin and the device plugins create: QuotaRegions.create without SizedBy.HOST
    RegionConfig config =
        RegionConfig.forSlice(List.of(npu(0, 64 * MIB, 25, 0)), state.registry().toString());
    QuotaRegions regions = new QuotaRegions();
    try (QuotaRegion dra = regions.create(store.regionFile("claim"), config)) {
      assertThat(dra.sizedBy()).isEqualTo(SizedBy.SCHEDULER);
    }
    try (HostSlices admin = new HostSlices(state, regions)) {
      assertThatThrownBy(() -> admin.resize("claim", SliceResize.none().withMemory(128 * MIB)))
          .isInstanceOf(SliceResizeException.class)
          .hasMessage(
              "slice claim: its sizes were charged by a scheduler (DRA plugin or device plugin, sized_by = "
                  + "scheduler); they are not resized live: change its claim or pod instead");
    }
    try (QuotaRegion r = regions.open(store.regionFile("claim"))) {
      assertThat(r.readConfig()).isEqualTo(config);
    }
    assertThat(store.read("claim").orElseThrow().memoryLimitBytes()).isEqualTo(64 * MIB);
  }

  @Test
  void badValuesNameTheFieldAndValue() {
    assertThatThrownBy(() -> SliceResize.none().withMemory(-1))
        .hasMessage("memory quota = -1 B: must be >= 0 (0 = unlimited)");
    assertThatThrownBy(() -> SliceResize.none().withCore(0))
        .hasMessage("core = 0 %: must be in 1..100");
    assertThatThrownBy(() -> SliceResize.none().withCore(101))
        .hasMessage("core = 101 %: must be in 1..100");
    assertThatThrownBy(() -> SliceResize.none().withWeight(10001))
        .hasMessage("weight = 10001: must be in 1..10000");
    assertThat(SliceResize.none().isEmpty()).isTrue();
  }
}
