package io.vnpu.kube.cli.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.model.Npu;
import io.vnpu.dcmi.DcmiLibraryLocator;
import io.vnpu.dcmi.DcmiNodeSelector;
import io.vnpu.dcmi.sim.BundledSimulator;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code vnpu run}, {@code top} and {@code demo} see chip health as the fault engine grades it. */
class DcmiNodeAccessHealthTest {
  @TempDir Path root;

  @TempDir Path noDriver;

  @Test
  void injectedFaultAndLinkDownAreGradedLikeEverywhereElse() throws Exception {
    Path nativeDir = Path.of(System.getProperty("vnpu.native.dir"));
    new BundledSimulator(nativeDir).configure("910B3x8", root);
    ProcessBuilder pb =
        new ProcessBuilder(nativeDir.resolve("vnpu-sim-ctl").toString(), "fault", "6", "0x40F84E00")
            .redirectErrorStream(true);
    pb.environment()
        .putAll(Map.of("VNPU_SIM_PROFILE", "910B3x8", "VNPU_SIM_ROOT", root.toString()));
    Process p = pb.start();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(text).isZero();

    DcmiLibraryLocator locator =
        new DcmiLibraryLocator(
            k -> null, k -> null, List.of(noDriver.resolve("lib64/driver/libdcmi.so")));
    NodeInfo node =
        new DcmiNodeAccess(new DcmiNodeSelector(locator, Optional.of(nativeDir)))
            .discover("910B3x8", root, new PrintWriter(new StringWriter()));
    Npu six = node.npus().get(6);
    assertThat(six.health().healthy()).isFalse();
    assertThat(six.health().reason()).isEqualTo("40F84E00 RestartNPU (poll)");
    assertThat(six.health().faultCode()).isEqualTo(0x40F84E00L);
    assertThat(node.npus().get(5).health().healthy()).isTrue();
  }
}
