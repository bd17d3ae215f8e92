package io.vnpu.kube.app;

import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The command-line flags of MindCluster's Ascend Device Plugin (spec section 3.1) as a picocli
 * mixin. Go's single-dash spelling ({@code -volcanoType=true}) is what upstream DaemonSets pass and
 * is accepted, as is {@code --volcanoType=true}; a boolean flag given alone means {@code true}, as
 * with Go's {@code flag} package. Defaults are upstream's.
 */
public final class MindClusterFlags {

  @Option(
      names = {"-volcanoType", "--volcanoType"},
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "BOOL",
      description =
          "Volcano chooses the real chips (pod annotation handshake). Default: ${DEFAULT-VALUE}.")
  boolean volcanoType;

  @Option(
      names = {"-presetVirtualDevice", "--presetVirtualDevice"},
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "true",
      paramLabel = "BOOL",
      description =
          "true: whole chips and static vNPUs; false: dynamic vNPUs (huawei.com/npu-core, "
              + "needs -volcanoType=true). Default: ${DEFAULT-VALUE}.")
  boolean presetVirtualDevice;

  @Option(
      names = {"-listWatchPeriod", "--listWatchPeriod"},
      defaultValue = "5",
      paramLabel = "SECONDS",
      description =
          "Health poll and device-info ConfigMap period, 3..1800 s. Default: ${DEFAULT-VALUE}.")
  long listWatchPeriod;

  @Option(
      names = {"-autoStowing", "--autoStowing"},
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "true",
      paramLabel = "BOOL",
      description = "Recovered chips return automatically. Default: ${DEFAULT-VALUE}.")
  boolean autoStowing;

  @Option(
      names = {"-hotReset", "--hotReset"},
      defaultValue = "-1",
      paramLabel = "MODE",
      description = "-1 off, 0 inference-card reset, 2 offline reset. Default: ${DEFAULT-VALUE}.")
  int hotReset;

  @Option(
      names = {"-shareDevCount", "--shareDevCount"},
      defaultValue = "1",
      paramLabel = "N",
      description =
          "Copies advertised per chip, 1..100 (310P/310B; 100 with "
              + "-softShareDevConfigDir = soft sharing). Default: ${DEFAULT-VALUE}.")
  int shareDevCount;

  @Option(
      names = {"-use310PMixedInsert", "--use310PMixedInsert"},
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "BOOL",
      description = "Per-product 310P resource names. Default: ${DEFAULT-VALUE}.")
  boolean use310PMixedInsert;

  @Option(
      names = {"-linkdownTimeout", "--linkdownTimeout"},
      defaultValue = "30",
      paramLabel = "SECONDS",
      description = "1..30 s. Default: ${DEFAULT-VALUE}.")
  long linkdownTimeout;

  @Option(
      names = {"-deviceResetTimeout", "--deviceResetTimeout"},
      defaultValue = "600",
      paramLabel = "SECONDS",
      description = "10..600 s. Default: ${DEFAULT-VALUE}.")
  long deviceResetTimeout;

  @Option(
      names = {"-thirdPartyScanDelay", "--thirdPartyScanDelay"},
      defaultValue = "300",
      paramLabel = "SECONDS",
      description =
          "Seconds before rescanning chips whose reset failed. " + "Default: ${DEFAULT-VALUE}.")
  long thirdPartyScanDelay;

  @Option(
      names = {"-softShareDevConfigDir", "--softShareDevConfigDir"},
      defaultValue = "",
      paramLabel = "DIR",
      description =
          "Absolute directory; enables soft sharing (needs "
              + "-shareDevCount=100 and -volcanoType=true).")
  String softShareDevConfigDir;

  @Option(
      names = {"-useSingleDieMode", "--useSingleDieMode"},
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "BOOL",
      description = "A3 single-die passthrough.")
  boolean useSingleDieMode;

  @Option(
      names = {"-enableSlowNode", "--enableSlowNode"},
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "BOOL",
      description =
          "Volcano Allocate answers carry PERF_DUMP_PATH/PERF_DUMP_CONFIG from ConfigMap steptime-dtpgroup.")
  boolean enableSlowNode;

  // Accepted so that upstream DaemonSet arguments work unchanged; they have no effect here.
  @Option(
      names = {"-dealWatchHandler", "--dealWatchHandler"},
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "BOOL",
      hidden = true)
  boolean dealWatchHandler;

  @Option(
      names = {"-checkCachedPods", "--checkCachedPods"},
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "true",
      paramLabel = "BOOL",
      hidden = true)
  boolean checkCachedPods;

  @Option(
      names = {"-getPodFromKubelet", "--getPodFromKubelet"},
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "BOOL",
      hidden = true)
  boolean getPodFromKubelet;

  @Option(
      names = {"-fdFlag", "--fdFlag"},
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "BOOL",
      hidden = true)
  boolean fdFlag;

  @Option(
      names = {"-edgeLogFile", "--edgeLogFile"},
      paramLabel = "FILE",
      hidden = true)
  String edgeLogFile;

  @Option(
      names = {"-logFile", "--logFile"},
      paramLabel = "FILE",
      hidden = true)
  String logFile;

  @Option(
      names = {"-logLevel", "--logLevel"},
      paramLabel = "LEVEL",
      hidden = true)
  Integer logLevel;

  @Option(
      names = {"-maxAge", "--maxAge"},
      paramLabel = "DAYS",
      hidden = true)
  Integer maxAge;

  @Option(
      names = {"-maxBackups", "--maxBackups"},
      paramLabel = "N",
      hidden = true)
  Integer maxBackups;

  /**
   * The options these flags denote, with {@code NODE_NAME}, {@code HOST_IP} and {@code
   * ASCEND_DOCKER_RUNTIME} from {@code env}.
   *
   * @param nodeName this node's name when given on the command line, else null for {@code
   *     NODE_NAME}
   * @throws IllegalArgumentException one line naming the flag(s) when a value or combination is
   *     invalid
   */
  public MindClusterOptions toOptions(String nodeName, Map<String, String> env) {
    String node = nodeName != null ? nodeName : env.getOrDefault("NODE_NAME", "");
    Optional<Path> softDir =
        softShareDevConfigDir == null || softShareDevConfigDir.isEmpty()
            ? Optional.empty()
            : Optional.of(Path.of(softShareDevConfigDir));
    boolean ascendDocker = "true".equalsIgnoreCase(env.getOrDefault("ASCEND_DOCKER_RUNTIME", ""));
    return MindClusterOptions.builder(node)
        .hostIp(env.getOrDefault("HOST_IP", ""))
        .volcanoType(volcanoType)
        .presetVirtualDevice(presetVirtualDevice)
        .listWatchPeriod(Duration.ofSeconds(listWatchPeriod))
        .autoStowing(autoStowing)
        .hotReset(hotReset)
        .shareDevCount(shareDevCount)
        .use310PMixedInsert(use310PMixedInsert)
        .linkdownTimeout(Duration.ofSeconds(linkdownTimeout))
        .deviceResetTimeout(Duration.ofSeconds(deviceResetTimeout))
        .thirdPartyScanDelay(Duration.ofSeconds(thirdPartyScanDelay))
        .softShareDevConfigDir(softDir)
        .useSingleDieMode(useSingleDieMode)
        .useAscendDocker(ascendDocker)
        .build();
  }
}
