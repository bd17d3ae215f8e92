package io.vnpu.kube.app;

import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The command-line flags of MindCluster's Ascend Device Plugin (spec section 3.1) as a picocli
 * mixin, every one a {@link GoFlag}: Go's single-dash spelling ({@code -volcanoType=true}) is what
 * upstream DaemonSets pass and is accepted, as is {@code --volcanoType=true}; a boolean flag given
 * alone means {@code true} ({@link GoFlagSpelling}). Defaults are upstream's.
 */
@Command(modelTransformer = GoFlagSpelling.class)
public final class MindClusterFlags {

  @GoFlag
  @Option(
      names = "--volcanoType",
      defaultValue = "false",
      description =
          "Volcano chooses the real chips (pod annotation handshake). Default: ${DEFAULT-VALUE}.")
  boolean volcanoType;

  @GoFlag
  @Option(
      names = "--presetVirtualDevice",
      defaultValue = "true",
      description =
          "true: whole chips and static vNPUs; false: dynamic vNPUs (huawei.com/npu-core, "
              + "needs -volcanoType=true). Default: ${DEFAULT-VALUE}.")
  boolean presetVirtualDevice;

  @GoFlag
  @Option(
      names = "--listWatchPeriod",
      defaultValue = "5",
      paramLabel = "SECONDS",
      description =
          "Health poll and device-info ConfigMap period, 3..1800 s. Default: ${DEFAULT-VALUE}.")
  long listWatchPeriod;

  @GoFlag
  @Option(
      names = "--autoStowing",
      defaultValue = "true",
      description = "Recovered chips return automatically. Default: ${DEFAULT-VALUE}.")
  boolean autoStowing;

  @GoFlag
  @Option(
      names = "--hotReset",
      defaultValue = "-1",
      paramLabel = "MODE",
      description = "-1 off, 0 inference-card reset, 2 offline reset. Default: ${DEFAULT-VALUE}.")
  int hotReset;

  @GoFlag
  @Option(
      names = "--shareDevCount",
      defaultValue = "1",
      paramLabel = "N",
      description =
          "Copies advertised per chip, 1..100 (310P/310B; 100 with "
              + "-softShareDevConfigDir = soft sharing). Default: ${DEFAULT-VALUE}.")
  int shareDevCount;

  @GoFlag
  @Option(
      names = "--use310PMixedInsert",
      defaultValue = "false",
      description = "Per-product 310P resource names. Default: ${DEFAULT-VALUE}.")
  boolean use310PMixedInsert;

  @GoFlag
  @Option(
      names = "--linkdownTimeout",
      defaultValue = "30",
      paramLabel = "SECONDS",
      description = "1..30 s. Default: ${DEFAULT-VALUE}.")
  long linkdownTimeout;

  @GoFlag
  @Option(
      names = "--deviceResetTimeout",
      defaultValue = "600",
      paramLabel = "SECONDS",
      description = "10..600 s. Default: ${DEFAULT-VALUE}.")
  long deviceResetTimeout;

  @GoFlag
  @Option(
      names = "--thirdPartyScanDelay",
      defaultValue = "300",
      paramLabel = "SECONDS",
      description =
          "Seconds before rescanning chips whose reset failed. " + "Default: ${DEFAULT-VALUE}.")
  long thirdPartyScanDelay;

  @GoFlag
  @Option(
      names = "--softShareDevConfigDir",
      defaultValue = "",
      paramLabel = "DIR",
      description =
          "Absolute directory; enables soft sharing (needs "
              + "-shareDevCount=100 and -volcanoType=true).")
  String softShareDevConfigDir;

  @GoFlag
  @Option(
      names = "--useSingleDieMode",
      defaultValue = "false",
      description = "A3 single-die passthrough.")
  boolean useSingleDieMode;

  @GoFlag
  @Option(
      names = "--enableSlowNode",
      defaultValue = "false",
      description =
          "Volcano Allocate answers carry PERF_DUMP_PATH/PERF_DUMP_CONFIG from ConfigMap steptime-dtpgroup.")
  boolean enableSlowNode;

  // Accepted so that upstream DaemonSet arguments work unchanged; they have no effect here.
  @GoFlag
  @Option(names = "--dealWatchHandler", defaultValue = "false", hidden = true)
  boolean dealWatchHandler;

  @GoFlag
  @Option(names = "--checkCachedPods", defaultValue = "true", hidden = true)
  boolean checkCachedPods;

  @GoFlag
  @Option(names = "--getPodFromKubelet", defaultValue = "false", hidden = true)
  boolean getPodFromKubelet;

  @GoFlag
  @Option(names = "--fdFlag", defaultValue = "false", hidden = true)
  boolean fdFlag;

  @GoFlag
  @Option(names = "--edgeLogFile", paramLabel = "FILE", hidden = true)
  String edgeLogFile;

  @GoFlag
  @Option(names = "--logFile", paramLabel = "FILE", hidden = true)
  String logFile;

  @GoFlag
  @Option(names = "--logLevel", paramLabel = "LEVEL", hidden = true)
  Integer logLevel;

  @GoFlag
  @Option(names = "--maxAge", paramLabel = "DAYS", hidden = true)
  Integer maxAge;

  @GoFlag
  @Option(names = "--maxBackups", paramLabel = "N", hidden = true)
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
