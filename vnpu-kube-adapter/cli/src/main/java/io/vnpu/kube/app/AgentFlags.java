package io.vnpu.kube.app;

import io.vnpu.kube.agent.DeviceManagerOpener;
import io.vnpu.kube.agent.LimiterOptions;
import io.vnpu.kube.agent.MetricsOptions;
import io.vnpu.kube.agent.NodeAgent;
import io.vnpu.kube.agent.NodeAgentOptions;
import io.vnpu.kube.agent.ResourceBackendFactory;
import io.vnpu.kube.metrics.CompatNames;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The node agent's command-line flags, shared by {@code vnpu plugin} and {@code
 * io.vnpu.kube.app.NodeAgentMain}. Upstream names are kept as they are (underscores), so the
 * upstream DaemonSet arguments work unchanged; they are {@link GoFlag}s, so Go's single-dash
 * spelling ({@code -config_file}) is accepted too.
 */
@Command(modelTransformer = GoFlagSpelling.class)
public final class AgentFlags {

  @GoFlag
  @Option(
      names = "--config_file",
      required = false,
      paramLabel = "FILE",
      description = "HAMi device config (device-config.yaml).")
  Path configFile;

  @GoFlag
  @Option(
      names = "--node_config_file",
      paramLabel = "FILE",
      description =
          "HAMi node config (node-config.yaml); hami-vnpu-core, vDeviceCount, "
              + "filterDevices per node.")
  Path nodeConfigFile;

  @GoFlag
  @Option(
      names = "--node_name",
      paramLabel = "NAME",
      description = "This node's name (default: env NODE_NAME).")
  String nodeName;

  @GoFlag
  @Option(
      names = "--check_idle_vnpu_interval",
      defaultValue = "60",
      paramLabel = "SECONDS",
      description = "Period of the idle hard-vNPU cleanup, seconds (default: ${DEFAULT-VALUE}).")
  long checkIdleVnpuIntervalSeconds;

  @GoFlag
  @Option(
      names = "--report_time_offset",
      defaultValue = "1",
      paramLabel = "SECONDS",
      description = "Seconds added to the Reported_ handshake time (default: ${DEFAULT-VALUE}).")
  long reportTimeOffsetSeconds;

  @GoFlag
  @Option(
      names = "--hw_loglevel",
      defaultValue = "0",
      paramLabel = "LEVEL",
      description = "Accepted for compatibility with the upstream plugin; ignored.")
  int hwLogLevel;

  @GoFlag
  @Option(
      names = "--v",
      paramLabel = "LEVEL",
      hidden = true,
      description = "klog verbosity of the upstream plugin; accepted and ignored.")
  Integer klogVerbosity;

  @Option(
      names = "--kubelet-dir",
      defaultValue = "/var/lib/kubelet/device-plugins",
      paramLabel = "DIR",
      description = "The kubelet's device-plugin directory (default: ${DEFAULT-VALUE}).")
  Path kubeletDir;

  @Option(
      names = "--dcmi-library",
      paramLabel = "FILE",
      description = "Path of libdcmi.so (default: the driver's standard locations).")
  Path dcmiLibrary;

  @Option(
      names = "--simulate",
      converter = SimulatorProfileConverter.class,
      arity = "0..1",
      preprocessor = io.vnpu.kube.app.NoOptionAsValue.class,
      fallbackValue = "910B3x8",
      paramLabel = "PROFILE",
      description =
          "Run on the bundled simulated node (profile, default 910B3x8). Never "
              + "simulates unless given.")
  String simulate;

  @Option(
      names = "--limiter-assets",
      paramLabel = "DIR",
      description =
          "Directory in the image holding libvnpu.so (default: env HAMI_VNPU_ASSETS_PATH, "
              + "else "
              + LimiterOptions.DEFAULT_ASSETS
              + ").")
  Path limiterAssets;

  @Option(
      names = "--limiter-dir",
      defaultValue = LimiterOptions.DEFAULT_HOST_DIR,
      paramLabel = "DIR",
      description =
          "Host directory soft-sliced containers mount; libvnpu.so and ld.so.preload are "
              + "installed there (default: ${DEFAULT-VALUE}).")
  Path limiterDir;

  @Option(
      names = "--install-limiter",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "Install the limiter into --limiter-dir at start (default: ${DEFAULT-VALUE}); "
              + "--no-install-limiter only verifies files an operator provides.")
  boolean installLimiter;

  @Option(
      names = "--metrics-port",
      defaultValue = "" + MetricsOptions.DEFAULT_PORT,
      paramLabel = "PORT",
      description =
          "Port of /metrics, /livez and /readyz (default: ${DEFAULT-VALUE}, HAMi's); 0 turns them off.")
  int metricsPort;

  @Option(
      names = "--metrics-host",
      defaultValue = "0.0.0.0",
      paramLabel = "ADDRESS",
      description = "Address the metrics endpoint binds (default: ${DEFAULT-VALUE}).")
  String metricsHost;

  @Option(
      names = "--metrics-compat",
      defaultValue = "",
      paramLabel = "NAMES",
      description =
          "Also export other exporters' metric names, comma-separated: hami, npu-exporter "
              + "(default: none).")
  String metricsCompat;

  /** {@code --node_name} as given, empty when absent (then env {@code NODE_NAME} applies). */
  public Optional<String> nodeName() {
    return Optional.ofNullable(nodeName);
  }

  /** {@code --kubelet-dir}. */
  public Path kubeletDir() {
    return kubeletDir;
  }

  /** {@code --dcmi-library}, if given. */
  public Optional<Path> dcmiLibrary() {
    return Optional.ofNullable(dcmiLibrary);
  }

  /** {@code --simulate[=PROFILE]}, if given. */
  public Optional<String> simulate() {
    return Optional.ofNullable(simulate);
  }

  /**
   * {@code --metrics-host}, {@code --metrics-port}, {@code --metrics-compat} alone (for entry
   * points that do not run {@link NodeAgent}, such as {@code --mode mindcluster}).
   *
   * @throws IllegalArgumentException naming the flag when a value is invalid
   */
  public MetricsOptions metricsOptions() {
    return new MetricsOptions(metricsHost, metricsPort, CompatNames.parse(metricsCompat));
  }

  /**
   * The options these flags denote.
   *
   * @param env process environment (for {@code NODE_NAME})
   * @throws IllegalArgumentException naming the flag when a value is invalid
   */
  public NodeAgentOptions toOptions(Map<String, String> env) {
    if (configFile == null) {
      throw new IllegalArgumentException(
          "--config_file is required: the HAMi device config "
              + "(device-config.yaml); --mode mindcluster runs without it");
    }
    String node = nodeName != null ? nodeName : env.getOrDefault("NODE_NAME", "");
    String assetsEnv = env.get("HAMI_VNPU_ASSETS_PATH");
    Path assets =
        limiterAssets != null
            ? limiterAssets
            : Path.of(
                assetsEnv != null && !assetsEnv.isBlank()
                    ? assetsEnv
                    : LimiterOptions.DEFAULT_ASSETS);
    return new NodeAgentOptions(
        configFile,
        Optional.ofNullable(nodeConfigFile),
        node,
        Duration.ofSeconds(checkIdleVnpuIntervalSeconds),
        Duration.ofSeconds(reportTimeOffsetSeconds),
        hwLogLevel,
        kubeletDir,
        Optional.ofNullable(dcmiLibrary),
        Optional.ofNullable(simulate),
        new LimiterOptions(assets, limiterDir, installLimiter),
        metricsOptions());
  }

  /**
   * A usage error naming the flag for a file that is not there, before the agent starts (which
   * would report it too, as a start-up failure among its log lines). Not in {@link #toOptions}: the
   * chart's paths are checked there on a machine that has none of them.
   */
  private static void requireFile(String flag, Path file) {
    if (file != null && !java.nio.file.Files.exists(file)) {
      throw new IllegalArgumentException(flag + " " + file + ": no such file");
    }
  }

  /**
   * Builds the options from these flags and runs the agent until SIGTERM or give-up; what {@code
   * vnpu plugin} and every plain main class of a node agent call.
   *
   * @param command the command as the user typed it ({@code vnpu plugin}), the first word of a
   *     usage error's one line on {@code err}
   * @return the exit code ({@link NodeAgent#EXIT_OK}, {@link NodeAgent#EXIT_STARTUP_FAILED}, {@link
   *     NodeAgent#EXIT_PLUGIN_GAVE_UP})
   */
  public int launch(
      DeviceManagerOpener opener,
      ResourceBackendFactory backends,
      Map<String, String> env,
      String command,
      java.io.PrintWriter err) {
    NodeAgentOptions options;
    try {
      options = toOptions(env);
      requireFile("--config_file", configFile);
      requireFile("--node_config_file", nodeConfigFile);
    } catch (IllegalArgumentException e) {
      err.println(command + ": " + e.getMessage());
      return NodeAgent.EXIT_STARTUP_FAILED;
    }
    return new NodeAgent(options, opener, backends, UnaryOperator.identity()).run();
  }
}
