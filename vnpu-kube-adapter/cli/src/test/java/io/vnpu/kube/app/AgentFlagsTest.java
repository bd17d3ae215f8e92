package io.vnpu.kube.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.kube.agent.LimiterOptions;
import io.vnpu.kube.agent.MetricsOptions;
import io.vnpu.kube.agent.NodeAgent;
import io.vnpu.kube.agent.NodeAgentOptions;
import io.vnpu.kube.cli.VnpuCli;
import io.vnpu.kube.metrics.CompatNames;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class AgentFlagsTest {

  private static AgentFlags parse(String... args) {
    AgentFlags flags = new AgentFlags();
    new CommandLine(flags).parseArgs(args);
    return flags;
  }

  @Test
  void upstreamArgumentsAreAcceptedAndDefaultsMatchUpstream() {
    // The upstream DaemonSet's args plus the node config file it forgets to pass.
    NodeAgentOptions o =
        parse(
                "--config_file",
                "/device-config.yaml",
                "--v=4",
                "--node_config_file=/node-config.yaml")
            .toOptions(Map.of("NODE_NAME", "worker-1"));

    assertThat(o)
        .isEqualTo(
            new NodeAgentOptions(
                Path.of("/device-config.yaml"),
                Optional.of(Path.of("/node-config.yaml")),
                "worker-1",
                Duration.ofSeconds(60),
                Duration.ofSeconds(1),
                0,
                Path.of("/var/lib/kubelet/device-plugins"),
                Optional.empty(),
                Optional.empty(),
                LimiterOptions.defaults(),
                new MetricsOptions("0.0.0.0", 9395, Set.of())));
  }

  @Test
  void everyFlagIsRead() {
    NodeAgentOptions o =
        parse(
                "-config_file",
                "/c.yaml",
                "--node_name",
                "n1",
                "--check_idle_vnpu_interval",
                "30",
                "--report_time_offset",
                "2",
                "--hw_loglevel",
                "-1",
                "--kubelet-dir",
                "/tmp/dp",
                "--dcmi-library",
                "/opt/libdcmi.so",
                "--simulate=310P3x4")
            .toOptions(Map.of("NODE_NAME", "ignored"));

    assertThat(o)
        .isEqualTo(
            new NodeAgentOptions(
                Path.of("/c.yaml"),
                Optional.empty(),
                "n1",
                Duration.ofSeconds(30),
                Duration.ofSeconds(2),
                -1,
                Path.of("/tmp/dp"),
                Optional.of(Path.of("/opt/libdcmi.so")),
                Optional.of("310P3x4"),
                LimiterOptions.defaults(),
                new MetricsOptions("0.0.0.0", 9395, Set.of())));
  }

  @Test
  void limiterAndMetricsFlagsAreRead() {
    NodeAgentOptions o =
        parse(
                "--config_file",
                "/c.yaml",
                "--limiter-dir",
                "/host/limiter",
                "--no-install-limiter",
                "--metrics-port",
                "9400",
                "--metrics-host",
                "127.0.0.1",
                "--metrics-compat",
                "hami,npu-exporter")
            .toOptions(Map.of("NODE_NAME", "n1", "HAMI_VNPU_ASSETS_PATH", "/assets"));
    assertThat(o.limiter())
        .isEqualTo(new LimiterOptions(Path.of("/assets"), Path.of("/host/limiter"), false));
    assertThat(o.metrics())
        .isEqualTo(new MetricsOptions("127.0.0.1", 9400, EnumSet.allOf(CompatNames.class)));
    assertThat(
            parse("--config_file", "/c.yaml", "--limiter-assets", "/img")
                .toOptions(Map.of("NODE_NAME", "n1"))
                .limiter()
                .assetsDir())
        .isEqualTo(Path.of("/img"));
    assertThatThrownBy(
            () ->
                parse("--config_file", "/c.yaml", "--metrics-compat", "dcgm")
                    .toOptions(Map.of("NODE_NAME", "n")))
        .hasMessageContaining("--metrics-compat = dcgm");
    assertThatThrownBy(
            () ->
                parse("--config_file", "/c.yaml", "--metrics-port", "70000")
                    .toOptions(Map.of("NODE_NAME", "n")))
        .hasMessage("--metrics-port = 70000: not a TCP port (0 turns metrics off)");
  }

  @Test
  void simulateWithoutProfileUsesTheDefaultProfileAndIsOffUnlessGiven() {
    assertThat(
            parse("--config_file", "/c", "--simulate")
                .toOptions(Map.of("NODE_NAME", "n"))
                .simulate())
        .contains("910B3x8");
    assertThat(parse("--config_file", "/c").toOptions(Map.of("NODE_NAME", "n")).simulate())
        .isEmpty();
  }

  @Test
  void missingNodeNameIsAClearError() {
    assertThatThrownBy(() -> parse("--config_file", "/c").toOptions(Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "node name is empty: pass --node_name or set the NODE_NAME environment variable");
    assertThatThrownBy(
            () ->
                parse("--config_file", "/c", "--check_idle_vnpu_interval", "0")
                    .toOptions(Map.of("NODE_NAME", "n")))
        .hasMessage("--check_idle_vnpu_interval must be positive, got 0");
  }

  @Test
  void configFileIsRequiredAndThePluginSubcommandIsListed() {
    // optional for picocli (--mode mindcluster runs without it), required for HAMi options
    assertThatThrownBy(() -> parse("--node_name", "n").toOptions(Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--config_file is required: the HAMi device config (device-config.yaml); "
                + "--mode mindcluster runs without it");
    assertThat(VnpuCli.commandLine().getSubcommands()).containsKey("plugin");
  }

  @Test
  void pluginCommandWithoutNodeNameExitsWithTheStartupCode() {
    CommandLine cli = VnpuCli.commandLine();
    // NODE_NAME may be set in the build environment; the explicit empty value wins over it.
    int code = cli.execute("plugin", "--config_file", "/nonexistent.yaml", "--node_name", " ");
    assertThat(code).isEqualTo(NodeAgent.EXIT_STARTUP_FAILED);
  }
}
