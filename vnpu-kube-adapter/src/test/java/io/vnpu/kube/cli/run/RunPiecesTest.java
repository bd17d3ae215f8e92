package io.vnpu.kube.cli.run;

import io.vnpu.dcmi.DcmiNodeSelector;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.Priority;
import io.vnpu.kube.cli.process.ExitStatus;
import io.vnpu.kube.cli.slice.SliceRecord;
import io.vnpu.quota.model.DeviceUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunPiecesTest {

  private static final long GIB = 1L << 30;

  @TempDir Path tmp;

  @Test
  void workloadEnvironmentOnARealHostPreloadsTheLimiterAndNamesTheRegion() {
    WorkloadEnvironment env = new WorkloadEnvironment(Path.of("/opt/vnpu/libvnpu.so"), Path.of("/run/vnpu/slices/x/region"),
        8 * GIB, 3, 2, null);
    assertThat(env.variables(Map.of("LD_PRELOAD", "/lib/other.so"))).containsExactlyInAnyOrderEntriesOf(Map.of(
        "LD_PRELOAD", "/opt/vnpu/libvnpu.so:/lib/other.so",
        "NPU_LOCAL_SHM_PATH", "/run/vnpu/slices/x/region",
        "NPU_MEM_QUOTA", "8192",
        "NPU_PRIORITY", "3",
        "ASCEND_RT_VISIBLE_DEVICES", "2"));
  }

  @Test
  void workloadEnvironmentOnTheSimulatedNodeAddsTheSimulatedCann() {
    WorkloadEnvironment env = new WorkloadEnvironment(Path.of("/b/libvnpu.so"), Path.of("/s/region"), 0, 1, 0,
        new DcmiNodeSelector.SimulatedNode(Path.of("/b"), Path.of("/tmp/sim"), "910B3x8"));
    Map<String, String> v = env.variables(Map.of());
    assertThat(v).containsEntry("LD_PRELOAD", "/b/libvnpu.so").containsEntry("LD_LIBRARY_PATH", "/b")
        .containsEntry("VNPU_SIM_ROOT", "/tmp/sim").containsEntry("VNPU_SIM_PROFILE", "910B3x8")
        .containsEntry("NPU_MEM_QUOTA", "0");
  }

  @Test
  void limiterLookupOrderAndErrors() throws Exception {
    Path built = Files.createFile(tmp.resolve("libvnpu.so"));
    assertThat(LimiterLibrary.locate(null, null, Optional.of(tmp))).isEqualTo(built.toAbsolutePath());
    assertThat(LimiterLibrary.locate(built, "/nope", Optional.empty())).isEqualTo(built.toAbsolutePath());
    assertThatThrownBy(() -> LimiterLibrary.locate(null, "/nope/libvnpu.so", Optional.of(tmp)))
        .hasMessage("limiter /nope/libvnpu.so (from VNPU_LIMITER) does not exist");
    assertThatThrownBy(() -> LimiterLibrary.locate(null, null, Optional.of(tmp.resolve("empty"))))
        .hasMessageStartingWith("limiter libvnpu.so not found; tried [" + tmp.resolve("empty/libvnpu.so"))
        .hasMessageContaining("/usr/local/vnpu/lib/libvnpu.so");
  }

  @Test
  void summaryLine() {
    SliceRecord r = new SliceRecord("train", 0, 0, 8 * GIB, 3, 0, Priority.NORMAL, 1, 0, 0, List.of("x"));
    DeviceUsage mem = new DeviceUsage(0, 0, 8 * GIB, 3 * GIB, 2, 0, 0, 5);
    assertThat(RunSummary.line(r, new ExitStatus(0), 10.04, mem, new ComputeCounters(100, 2_500_000_000L)))
        .isEqualTo("vnpu run: slice train on NPU 0: exit 0 after 10.0 s; peak HBM 3.0 GiB of 8.0 GiB"
            + " (2 allocations refused with 207001); AI-core share 24.9 % (weight 3)");
    SliceRecord capped = new SliceRecord("c", 1, 1, 0, 25, 25, Priority.HIGH, 1, 0, 0, List.of("x"));
    assertThat(RunSummary.line(capped, new ExitStatus(143), 2, new DeviceUsage(1, 0, 0, 0, 0, 0, 0, 0),
        new ComputeCounters(0, 0)))
        .isEqualTo("vnpu run: slice c on NPU 1: exit 143 (SIGTERM) after 2.0 s; peak HBM 0 B of unlimited;"
            + " AI-core share - (no kernel launches seen; cap 25 %)");
  }

  @Test
  void registryNamesFitIn31Bytes() {
    assertThat(SliceSession.registryName("short")).isEqualTo("short");
    assertThat(SliceSession.registryName("a".repeat(40))).isEqualTo("a".repeat(31));
  }
}
