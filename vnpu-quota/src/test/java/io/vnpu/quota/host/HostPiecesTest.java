package io.vnpu.quota.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostPiecesTest {

  private static final long GIB = 1L << 30;

  @TempDir Path tmp;

  @Test
  void workloadEnvironmentOnARealHostPreloadsTheLimiterAndNamesTheRegion() {
    WorkloadEnvironment env =
        new WorkloadEnvironment(
            Path.of("/opt/vnpu/libvnpu.so"),
            Path.of("/run/vnpu/slices/x/region"),
            8 * GIB,
            3,
            2,
            WorkloadEnvironment.NodeRuntime.INSTALLED);
    assertThat(env.variables(Map.of("LD_PRELOAD", "/lib/other.so")))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "LD_PRELOAD", "/opt/vnpu/libvnpu.so:/lib/other.so",
                "NPU_LOCAL_SHM_PATH", "/run/vnpu/slices/x/region",
                "NPU_MEM_QUOTA", "8192",
                "NPU_PRIORITY", "3",
                "ASCEND_RT_VISIBLE_DEVICES", "2"));
  }

  @Test
  void workloadEnvironmentOnTheSimulatedNodeAddsTheSimulatedCann() {
    WorkloadEnvironment env =
        new WorkloadEnvironment(
            Path.of("/b/libvnpu.so"),
            Path.of("/s/region"),
            0,
            1,
            0,
            new WorkloadEnvironment.NodeRuntime(
                Optional.of(Path.of("/b")),
                Map.of("VNPU_SIM_ROOT", "/tmp/sim", "VNPU_SIM_PROFILE", "910B3x8")));
    Map<String, String> v = env.variables(Map.of());
    assertThat(v)
        .containsEntry("LD_PRELOAD", "/b/libvnpu.so")
        .containsEntry("LD_LIBRARY_PATH", "/b")
        .containsEntry("VNPU_SIM_ROOT", "/tmp/sim")
        .containsEntry("VNPU_SIM_PROFILE", "910B3x8")
        .containsEntry("NPU_MEM_QUOTA", "0");
  }

  @Test
  void limiterLookupOrderAndErrors() throws Exception {
    Path built = Files.createFile(tmp.resolve("libvnpu.so"));
    assertThat(LimiterLibrary.locate(null, null, Optional.of(tmp)))
        .isEqualTo(built.toAbsolutePath());
    assertThat(LimiterLibrary.locate(built, "/nope", Optional.empty()))
        .isEqualTo(built.toAbsolutePath());
    assertThatThrownBy(() -> LimiterLibrary.locate(null, "/nope/libvnpu.so", Optional.of(tmp)))
        .hasMessage("limiter /nope/libvnpu.so (from VNPU_LIMITER) does not exist");
    assertThatThrownBy(() -> LimiterLibrary.locate(null, null, Optional.of(tmp.resolve("empty"))))
        .hasMessageStartingWith(
            "limiter libvnpu.so not found; tried [" + tmp.resolve("empty/libvnpu.so"))
        .hasMessageContaining("/usr/local/vnpu/lib/libvnpu.so");
  }

  @Test
  void registryNamesFitIn31Bytes() {
    assertThat(SliceSession.registryName("short")).isEqualTo("short");
    assertThat(SliceSession.registryName("a".repeat(40))).isEqualTo("a".repeat(31));
  }
}
