package io.vnpu.quota.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.quota.NativeDir;
import io.vnpu.quota.host.process.ChildSupervisor;
import io.vnpu.quota.host.process.ExitStatus;
import io.vnpu.quota.model.PolicyFlag;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An embedder does what {@code vnpu run} does with vnpu-quota alone: creates a slice, runs npu-burn
 * in it under the limiter on the simulated CANN runtime, reads its accounting, lists, reaps.
 */
class HostSlicesTest {
  private static final long MIB = 1L << 20;

  @TempDir Path tmp;

  private final ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();

  /** No JVM signal handlers: an embedder decides about its own signals. */
  private final ChildSupervisor supervisor =
      new ChildSupervisor(
          (signals, handler) -> () -> {},
          (pid, sig) -> {},
          ChildSupervisor.FORWARDED,
          new PrintStream(diagnostics, true));

  private static SliceDevice npu0(long memoryBytes, int weight, int cap) {
    return new SliceDevice(
        new NpuRef(0, "U0"), new SliceShare.SoftQuota(memoryBytes, weight, cap, Priority.NORMAL));
  }

  @Test
  void aCommandRunsInASliceUnderTheLimiterAndTheSliceIsGoneAfterwards() throws Exception {
    StateDir state = new StateDir(tmp.resolve("state"));
    Path out = tmp.resolve("burn.out");
    WorkloadEnvironment.NodeRuntime simulated =
        new WorkloadEnvironment.NodeRuntime(
            Optional.of(NativeDir.path()),
            Map.of("VNPU_SIM_ROOT", tmp.resolve("sim").toString(), "VNPU_SIM_QUIET", "1"));
    try (HostSlices slices = new HostSlices(state, new QuotaRegions())) {
      try (SliceSession s =
          slices.create(
              new HostSliceRequest("embed", 0, npu0(1024 * MIB, 0, 0), List.of("npu-burn")))) {
        assertThat(slices.list()).extracting(SliceRecord::name).containsExactly("embed");
        assertThat(s.record().weight()).isEqualTo(1);
        ExitStatus status =
            slices.run(
                s,
                NativeDir.program("libvnpu.so"),
                simulated,
                List.of(
                    "sh",
                    "-c",
                    "exec \"$0\" --device 0 alloc 768M alloc 512M > \"$1\" 2>&1",
                    NativeDir.program("npu-burn").toString(),
                    out.toString()),
                Map.of(),
                supervisor);

        assertThat(status.code()).isZero();
        assertThat(Files.readAllLines(out))
            .extracting(l -> l.replaceAll(" (ptr|pid|thread)=\\S+", ""))
            .containsExactly("alloc ok size=805306368", "alloc fail code=207001 size=536870912");
        assertThat(s.memory().oomRejections()).isEqualTo(1);
        assertThat(s.memory().limitBytes()).isEqualTo(1024 * MIB);
        // aclrtMalloc reaches the runtime padded by 32 bytes (see LimiterEndToEndTest)
        assertThat(s.memory().peakBytes()).isEqualTo(768 * MIB + 32);
      }
      assertThat(slices.list()).isEmpty();
      assertThat(state.slices().resolve("embed")).doesNotExist();
    }
    assertThat(diagnostics.toString()).isEmpty();
  }

  @Test
  void theRegionIsTheOneRuleForASlice() throws Exception {
    QuotaRegions regions = new QuotaRegions();
    try (HostSlices slices = new HostSlices(new StateDir(tmp.resolve("state")), regions);
        SliceSession s =
            slices.create(new HostSliceRequest("capped", 2, npu0(0, 30, 25), List.of()))) {
      RegionConfig c = s.region().readConfig();
      assertThat(c.policy())
          .isEqualTo(
              Set.of(
                  PolicyFlag.MEM_ENFORCE,
                  PolicyFlag.COMPUTE_ENFORCE,
                  PolicyFlag.COMPUTE_FAIL_OPEN,
                  PolicyFlag.HARD_CAP));
      assertThat(c.devices().get(0).computeWeight()).isEqualTo(30);
      assertThat(c.devices().get(0).computeCapPct()).isEqualTo(25);
      assertThat(c.registryDir()).isEqualTo(tmp.resolve("state/registry").toString());
      assertThat(s.epoch()).isEqualTo(s.region().epoch()).isNotZero();
      assertThat(s.busyTime().launches()).isZero();
      assertThat(s.record().logicId()).isEqualTo(2);
    }
  }

  @Test
  @SuppressWarnings("try") // the live slice only needs to exist while the list is read
  void reapRemovesSlicesWhoseOwnerIsGoneAndRemoveRefusesALiveOne() throws Exception {
    StateDir state = new StateDir(tmp.resolve("state"));
    SliceStore store = new SliceStore(state);
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    store.create(
        new SliceRecord("stale", 0, 0, 0, 1, 0, Priority.NORMAL, gone.pid(), 0, 0, List.of()));
    try (HostSlices slices = new HostSlices(state, new QuotaRegions());
        SliceSession live =
            slices.create(new HostSliceRequest("live", 0, npu0(MIB, 1, 0), List.of()))) {
      assertThat(slices.list()).extracting(SliceRecord::name).containsExactly("live", "stale");
      assertThatThrownBy(() -> slices.remove("live"))
          .hasMessage(
              "slice live is in use by pid "
                  + ProcessHandle.current().pid()
                  + "; stop that process instead");
      assertThat(slices.reap()).containsExactly("stale");
      assertThat(slices.list()).extracting(SliceRecord::name).containsExactly("live");
      assertThat(slices.remove("nope")).isFalse();
    }
  }

  /** The agents' links to registered regions on NPU 0: one per compute-registry entry. */
  private static List<Path> registeredLinks(StateDir state) throws Exception {
    Path locks =
        io.vnpu.quota.registry.ComputeRegistry.lockFile(NpuRegistries.file(state.registry(), 0))
            .getParent();
    try (var files = java.nio.file.Files.list(locks)) {
      return files
          .filter(f -> f.getFileName().toString().matches("npu0-[0-9a-f]{16}\\.region"))
          .toList();
    }
  }

  /**
   * A slice whose owner was killed (kill -9: its session never closed) kept its compute-registry
   * entry after reap and rm: a ghost neighbour at its weight that halved every later slice of the
   * NPU.
   */
  @Test
  @SuppressWarnings("try")
  void reapAndRemoveFreeTheRegistryEntryOfASliceWhoseOwnerDied() throws Exception {
    StateDir state = new StateDir(tmp.resolve("state"));
    SliceStore store = new SliceStore(state);
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    try (HostSlices slices = new HostSlices(state, new QuotaRegions());
        SliceSession reaped =
            slices.create(new HostSliceRequest("reaped", 0, npu0(MIB, 1, 0), List.of()));
        SliceSession removed =
            slices.create(new HostSliceRequest("removed", 0, npu0(MIB, 1, 0), List.of()))) {
      assertThat(registeredLinks(state)).hasSize(2);
      // the owners "die": their records now name a process that is gone
      for (SliceSession s : List.of(reaped, removed)) {
        SliceRecord r = s.record();
        store.update(
            new SliceRecord(
                r.name(),
                r.logicId(),
                r.phyId(),
                r.memoryLimitBytes(),
                r.weight(),
                r.capPct(),
                r.priority(),
                gone.pid(),
                0,
                r.createdMillis(),
                r.command()));
      }
      assertThat(slices.remove("removed")).isTrue();
      assertThat(registeredLinks(state)).hasSize(1);
      assertThat(slices.reap()).containsExactly("reaped");
      assertThat(registeredLinks(state)).isEmpty();
    }
  }

  @Test
  void aRequestNeedsASoftQuotaAndAValidName() {
    assertThatThrownBy(
            () ->
                new HostSliceRequest(
                    "x",
                    0,
                    new SliceDevice(new NpuRef(0, "U0"), new SliceShare.Whole()),
                    List.of()))
        .hasMessage(
            "a host slice needs a soft quota: device U0 has a WHOLE share, not a soft quota");
    assertThatThrownBy(() -> new HostSliceRequest("../x", 0, npu0(0, 1, 0), List.of()))
        .hasMessageStartingWith("slice name '../x' must be");
  }
}
