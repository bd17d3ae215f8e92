package io.vnpu.kube.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** MindCluster's flags (spec section 3.1): defaults, Go spellings, ranges and cross-flag rules. */
class MindClusterFlagsTest {
  private static final Map<String, String> ENV = Map.of("NODE_NAME", "node-1");

  @Command(name = "t")
  static final class Holder {
    @Mixin MindClusterFlags flags;
  }

  private static MindClusterOptions parse(String... args) {
    Holder h = new Holder();
    new CommandLine(h).parseArgs(args);
    return h.flags.toOptions(null, ENV);
  }

  private static String error(String... args) {
    try {
      parse(args);
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    throw new AssertionError("no error for " + String.join(" ", args));
  }

  @Test
  void defaultsAreUpstreams() {
    MindClusterOptions o = parse();
    assertThat(o).isEqualTo(MindClusterOptions.defaults("node-1"));
    assertThat(o.volcanoType()).isFalse();
    assertThat(o.presetVirtualDevice()).isTrue();
    assertThat(o.listWatchPeriod()).isEqualTo(Duration.ofSeconds(5));
    assertThat(o.autoStowing()).isTrue();
    assertThat(o.hotReset()).isEqualTo(-1);
    assertThat(o.shareDevCount()).isEqualTo(1);
    assertThat(o.linkdownTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(o.deviceResetTimeout()).isEqualTo(Duration.ofSeconds(600));
    assertThat(o.thirdPartyScanDelay()).isEqualTo(Duration.ofSeconds(300));
    assertThat(o.softShareDevConfigDir()).isEmpty();
    assertThat(o.useAscendDocker()).isFalse();
  }

  @Test
  void goSpellingsAreAccepted() {
    MindClusterOptions o =
        parse(
            "-volcanoType=true",
            "-presetVirtualDevice=false",
            "-listWatchPeriod=7",
            "-hotReset",
            "2",
            "--autoStowing=false",
            "-logFile=/var/log/x.log",
            "-logLevel=0",
            "-getPodFromKubelet");
    assertThat(o.volcanoType()).isTrue();
    assertThat(o.presetVirtualDevice()).isFalse();
    assertThat(o.listWatchPeriod()).isEqualTo(Duration.ofSeconds(7));
    assertThat(o.hotReset()).isEqualTo(2);
    assertThat(o.autoStowing()).isFalse();
    assertThat(parse("-volcanoType").volcanoType()).isTrue();
  }

  @Test
  void environmentGivesNodeHostIpAndRuntime() {
    Holder h = new Holder();
    new CommandLine(h).parseArgs();
    MindClusterOptions o =
        h.flags.toOptions(
            null,
            Map.of("NODE_NAME", "n7", "HOST_IP", "10.0.0.7", "ASCEND_DOCKER_RUNTIME", "True"));
    assertThat(o.nodeName()).isEqualTo("n7");
    assertThat(o.hostIp()).isEqualTo("10.0.0.7");
    assertThat(o.useAscendDocker()).isTrue();
    assertThatThrownBy(() -> h.flags.toOptions(null, Map.of()))
        .hasMessage("node name is empty: set the NODE_NAME environment variable (or --node_name)");
  }

  @Test
  void rangesNameTheFlagAndValue() {
    assertThat(error("-listWatchPeriod=2")).isEqualTo("-listWatchPeriod = 2: must be in [3, 1800]");
    assertThat(error("-listWatchPeriod=1801"))
        .isEqualTo("-listWatchPeriod = 1801: must be in [3, 1800]");
    assertThat(error("-shareDevCount=0")).isEqualTo("-shareDevCount = 0: must be in [1, 100]");
    assertThat(error("-shareDevCount=101")).isEqualTo("-shareDevCount = 101: must be in [1, 100]");
    assertThat(error("-linkdownTimeout=31")).isEqualTo("-linkdownTimeout = 31: must be in [1, 30]");
    assertThat(error("-deviceResetTimeout=9"))
        .isEqualTo("-deviceResetTimeout = 9: must be in [10, 600]");
    assertThat(error("-hotReset=1")).startsWith("-hotReset = 1: must be -1 (off), 0");
    assertThat(error("-volcanoType", "-shareDevCount=100", "-softShareDevConfigDir=rel/dir"))
        .isEqualTo("-softShareDevConfigDir = rel/dir: must be an absolute directory");
  }

  @Test
  void invalidCombinationsAreOneLineNamingBothFlags() {
    assertThat(error("-presetVirtualDevice=false"))
        .isEqualTo(
            "-presetVirtualDevice=false requires -volcanoType=true (dynamic vNPUs are chosen by Volcano)");
    assertThat(error("-use310PMixedInsert", "-volcanoType"))
        .isEqualTo("-use310PMixedInsert=true cannot be combined with -volcanoType=true");
    assertThat(error("-use310PMixedInsert", "-shareDevCount=2"))
        .isEqualTo("-use310PMixedInsert=true cannot be combined with -shareDevCount=2 (must be 1)");
    assertThat(error("-volcanoType", "-presetVirtualDevice=false", "-shareDevCount=4"))
        .isEqualTo(
            "-shareDevCount=4 requires -presetVirtualDevice=true (sharing and dynamic vNPUs exclude each other)");
    assertThat(error("-volcanoType", "-softShareDevConfigDir=/etc/softshare"))
        .isEqualTo("-softShareDevConfigDir requires -shareDevCount=100 (got -shareDevCount=1)");
    assertThat(error("-shareDevCount=100", "-softShareDevConfigDir=/etc/softshare"))
        .isEqualTo(
            "-softShareDevConfigDir requires -volcanoType=true (soft-share pods are placed by Volcano)");
    for (String[] args :
        new String[][] {{"-presetVirtualDevice=false"}, {"-use310PMixedInsert", "-volcanoType"}}) {
      assertThat(error(args)).doesNotContain("\n").doesNotContain("Exception");
    }
  }

  @Test
  void mixedInsertStandsAloneAndTurnsTheAscendDockerRuntimeOff() {
    Holder h = new Holder();
    new CommandLine(h).parseArgs("-use310PMixedInsert=true");
    MindClusterOptions o =
        h.flags.toOptions(null, Map.of("NODE_NAME", "node-1", "ASCEND_DOCKER_RUNTIME", "True"));
    assertThat(o.use310PMixedInsert()).isTrue();
    assertThat(o.useAscendDocker()).isTrue();
    assertThat(o.ascendDockerInUse()).isFalse();
    assertThat(o.withMixedInsert(false).ascendDockerInUse()).isTrue();
    // mixed insertion with dynamic vNPUs fails on the Volcano rule both need
    assertThat(error("-use310PMixedInsert", "-presetVirtualDevice=false"))
        .isEqualTo(
            "-presetVirtualDevice=false requires -volcanoType=true (dynamic vNPUs are chosen by Volcano)");
  }

  @Test
  void softShareNeedsAllThree() {
    MindClusterOptions o =
        parse("-volcanoType", "-shareDevCount=100", "-softShareDevConfigDir=/etc/softshare");
    assertThat(o.softShare()).isTrue();
    assertThat(o.softShareDevConfigDir()).isEqualTo(Optional.of(Path.of("/etc/softshare")));
  }
}
