package io.vnpu.kube.agent;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of the example node agent, from the upstream plugin's flags plus vnpu's own.
 *
 * @param configFile {@code --config_file}: HAMi {@code device-config.yaml}
 * @param nodeConfigFile {@code --node_config_file}: HAMi {@code node-config.yaml}, if given
 * @param nodeName {@code --node_name}, else env {@code NODE_NAME}
 * @param checkIdleVnpuInterval {@code --check_idle_vnpu_interval} (upstream default 60 s)
 * @param reportTimeOffset {@code --report_time_offset} (upstream default 1 s)
 * @param hwLogLevel {@code --hw_loglevel}: accepted for compatibility; vnpu has no Huawei logger,
 *     so it is only logged
 * @param kubeletDir {@code --kubelet-dir}: the kubelet's device-plugin directory
 * @param dcmiLibrary {@code --dcmi-library}: explicit {@code libdcmi.so}, else the driver's
 *     standard locations
 * @param simulate {@code --simulate[=PROFILE]}: use the bundled simulated node with this profile;
 *     empty means the real driver (never simulated unless asked)
 * @param limiter limiter installation ({@code --limiter-assets}, {@code --limiter-dir}, {@code
 *     --install-limiter})
 * @param metrics metrics and probe endpoint ({@code --metrics-host}, {@code --metrics-port}, {@code
 *     --metrics-compat})
 */
public record NodeAgentOptions(
    Path configFile,
    Optional<Path> nodeConfigFile,
    String nodeName,
    Duration checkIdleVnpuInterval,
    Duration reportTimeOffset,
    int hwLogLevel,
    Path kubeletDir,
    Optional<Path> dcmiLibrary,
    Optional<String> simulate,
    LimiterOptions limiter,
    MetricsOptions metrics) {

  /**
   * The options with {@link LimiterOptions#defaults()} and no metrics endpoint ({@link
   * MetricsOptions#off()}).
   */
  public NodeAgentOptions(
      Path configFile,
      Optional<Path> nodeConfigFile,
      String nodeName,
      Duration checkIdleVnpuInterval,
      Duration reportTimeOffset,
      int hwLogLevel,
      Path kubeletDir,
      Optional<Path> dcmiLibrary,
      Optional<String> simulate) {
    this(
        configFile,
        nodeConfigFile,
        nodeName,
        checkIdleVnpuInterval,
        reportTimeOffset,
        hwLogLevel,
        kubeletDir,
        dcmiLibrary,
        simulate,
        LimiterOptions.defaults(),
        MetricsOptions.off());
  }

  public NodeAgentOptions {
    Objects.requireNonNull(configFile, "configFile");
    Objects.requireNonNull(nodeConfigFile, "nodeConfigFile");
    Objects.requireNonNull(nodeName, "nodeName");
    Objects.requireNonNull(checkIdleVnpuInterval, "checkIdleVnpuInterval");
    Objects.requireNonNull(reportTimeOffset, "reportTimeOffset");
    Objects.requireNonNull(kubeletDir, "kubeletDir");
    Objects.requireNonNull(dcmiLibrary, "dcmiLibrary");
    Objects.requireNonNull(simulate, "simulate");
    Objects.requireNonNull(limiter, "limiter");
    Objects.requireNonNull(metrics, "metrics");
    if (nodeName.isBlank()) {
      throw new IllegalArgumentException(
          "node name is empty: pass --node_name or set the NODE_NAME environment variable");
    }
    if (checkIdleVnpuInterval.isNegative() || checkIdleVnpuInterval.isZero()) {
      throw new IllegalArgumentException(
          "--check_idle_vnpu_interval must be positive, got " + checkIdleVnpuInterval.toSeconds());
    }
    if (reportTimeOffset.isNegative()) {
      throw new IllegalArgumentException(
          "--report_time_offset must be >= 0, got " + reportTimeOffset.toSeconds());
    }
  }
}
