package io.vnpu.kube.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code vnpu plugin --mode mindcluster --simulate}: without the Ascend Docker Runtime the answers'
 * DeviceSpecs name the simulated node's device nodes (under its state directory), which exist, so a
 * runtime accepts them; on a real node they are the host's {@code /dev} ones.
 */
class MindClusterLauncherTest {
  private static AgentFlags common(String... args) {
    AgentFlags f = new AgentFlags();
    new CommandLine(f).parseArgs(args);
    return f;
  }

  private static MindClusterFlags mindcluster() {
    MindClusterFlags f = new MindClusterFlags();
    new CommandLine(f).parseArgs();
    return f;
  }

  @Test
  void theSimulatedNodesDeviceNodesAreUnderItsStateDirectory() {
    assertThat(
            MindClusterLauncher.options(
                    common("--simulate"),
                    mindcluster(),
                    Map.of("NODE_NAME", "n1", "VNPU_SIM_ROOT", "/tmp/sim-a"))
                .devRoot())
        .isEqualTo(Path.of("/tmp/sim-a"));
    assertThat(
            MindClusterLauncher.options(
                    common("--simulate"), mindcluster(), Map.of("NODE_NAME", "n1"))
                .devRoot()
                .toString())
        .startsWith("/tmp/vnpu-sim-");
  }

  @Test
  void aRealNodesDeviceNodesAreTheHostsAndTheRuntimeFlagIsKept() {
    assertThat(
            MindClusterLauncher.options(
                    common(),
                    mindcluster(),
                    Map.of("NODE_NAME", "n1", "VNPU_SIM_ROOT", "/tmp/sim-a"))
                .devRoot())
        .isEqualTo(Path.of("/"));
    assertThat(
            MindClusterLauncher.options(
                    common("--simulate"),
                    mindcluster(),
                    Map.of("NODE_NAME", "n1", "ASCEND_DOCKER_RUNTIME", "true"))
                .ascendDockerInUse())
        .isTrue();
  }
}
