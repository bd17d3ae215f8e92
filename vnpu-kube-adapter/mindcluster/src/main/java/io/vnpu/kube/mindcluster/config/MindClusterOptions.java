package io.vnpu.kube.mindcluster.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of the MindCluster backend: the flags of MindCluster's Ascend Device Plugin (spec {@code
 * dcmi-and-mindcluster.md} section 3.1, upstream defaults) plus what the upstream plugin reads from
 * its environment. Built by {@code io.vnpu.kube.app.MindClusterFlags} (vnpu-cli) or directly by an
 * embedder (start from {@link #builder(String)}); the constructor checks ranges and the cross-flag
 * rules and throws {@link IllegalArgumentException} with one line naming the flag(s).
 *
 * <p>Flags this backend acts on: {@code volcanoType}, {@code presetVirtualDevice}, {@code
 * listWatchPeriod}, {@code shareDevCount}, {@code softShareDevConfigDir}, {@code
 * use310PMixedInsert}. The fault and reset flags ({@code autoStowing}, {@code hotReset}, {@code
 * linkdownTimeout}, {@code deviceResetTimeout}, {@code thirdPartyScanDelay}) are validated and
 * carried for the chip-health source; the remaining ones are accepted for DaemonSet compatibility.
 *
 * @param nodeName env {@code NODE_NAME} (required)
 * @param hostIp env {@code HOST_IP}, empty when unset (rank table {@code host_ip})
 * @param volcanoType {@code -volcanoType}: Volcano chooses the real chips (section 3.8)
 * @param presetVirtualDevice {@code -presetVirtualDevice}: true = whole chips and static vNPUs,
 *     false = dynamic vNPU ({@code huawei.com/npu-core})
 * @param listWatchPeriod {@code -listWatchPeriod} seconds in [3, 1800]: health poll and ConfigMap
 *     update period
 * @param autoStowing {@code -autoStowing}
 * @param hotReset {@code -hotReset}: -1 off, 0 inference-card reset, 2 offline reset
 * @param shareDevCount {@code -shareDevCount} in [1, 100]: copies advertised per chip
 * @param use310PMixedInsert {@code -use310PMixedInsert}: 310P chips advertised per card product
 *     ({@code huawei.com/Ascend310P-V}, {@code -VPro}, {@code -IPro}); no Volcano, no sharing, no
 *     vNPUs, no Ascend Docker Runtime
 * @param linkdownTimeout {@code -linkdownTimeout} seconds in [1, 30]
 * @param deviceResetTimeout {@code -deviceResetTimeout} seconds in [10, 600]
 * @param thirdPartyScanDelay {@code -thirdPartyScanDelay} seconds, at least 1
 * @param softShareDevConfigDir {@code -softShareDevConfigDir}: absolute directory, empty = off
 * @param useSingleDieMode {@code -useSingleDieMode} (A3)
 * @param useAscendDocker env {@code ASCEND_DOCKER_RUNTIME=True}: the Ascend Docker Runtime is
 *     installed, so Allocate answers with env only (section 3.9)
 * @param devRoot root under which device nodes are checked ({@code /} on a node; a temp directory
 *     in tests); the response always names {@code /dev/...}
 * @param enableSlowNode {@code -enableSlowNode}: Volcano Allocate answers carry {@code
 *     PERF_DUMP_PATH} / {@code PERF_DUMP_CONFIG} from the pod namespace's ConfigMap {@code
 *     steptime-dtpgroup}
 */
public record MindClusterOptions(
    String nodeName,
    String hostIp,
    boolean volcanoType,
    boolean presetVirtualDevice,
    Duration listWatchPeriod,
    boolean autoStowing,
    int hotReset,
    int shareDevCount,
    boolean use310PMixedInsert,
    Duration linkdownTimeout,
    Duration deviceResetTimeout,
    Duration thirdPartyScanDelay,
    Optional<Path> softShareDevConfigDir,
    boolean useSingleDieMode,
    boolean useAscendDocker,
    Path devRoot,
    boolean enableSlowNode) {

  /**
   * {@code -shareDevCount} value that, with {@code -softShareDevConfigDir}, selects soft sharing.
   */
  public static final int SOFT_SHARE_DEVICE_COUNT = 100;

  public MindClusterOptions {
    Objects.requireNonNull(nodeName, "nodeName");
    Objects.requireNonNull(hostIp, "hostIp");
    Objects.requireNonNull(listWatchPeriod, "listWatchPeriod");
    Objects.requireNonNull(linkdownTimeout, "linkdownTimeout");
    Objects.requireNonNull(deviceResetTimeout, "deviceResetTimeout");
    Objects.requireNonNull(thirdPartyScanDelay, "thirdPartyScanDelay");
    Objects.requireNonNull(softShareDevConfigDir, "softShareDevConfigDir");
    Objects.requireNonNull(devRoot, "devRoot");
    if (nodeName.isBlank()) {
      throw new IllegalArgumentException(
          "node name is empty: set the NODE_NAME environment variable (or --node_name)");
    }
    range("-listWatchPeriod", listWatchPeriod.toSeconds(), 3, 1800);
    range("-shareDevCount", shareDevCount, 1, SOFT_SHARE_DEVICE_COUNT);
    range("-linkdownTimeout", linkdownTimeout.toSeconds(), 1, 30);
    range("-deviceResetTimeout", deviceResetTimeout.toSeconds(), 10, 600);
    if (thirdPartyScanDelay.toSeconds() < 1) {
      throw new IllegalArgumentException(
          "-thirdPartyScanDelay = "
              + thirdPartyScanDelay.toSeconds()
              + ": must be at least 1 (seconds)");
    }
    if (hotReset != -1 && hotReset != 0 && hotReset != 2) {
      throw new IllegalArgumentException(
          "-hotReset = "
              + hotReset
              + ": must be -1 (off), 0 "
              + "(inference card reset) or 2 (offline reset); 1 is deprecated upstream");
    }
    if (softShareDevConfigDir.isPresent() && !softShareDevConfigDir.get().isAbsolute()) {
      throw new IllegalArgumentException(
          "-softShareDevConfigDir = "
              + softShareDevConfigDir.get()
              + ": must be an absolute directory");
    }
    // cross-flag rules: one line naming both flags
    if (!presetVirtualDevice && !volcanoType) {
      throw new IllegalArgumentException(
          "-presetVirtualDevice=false requires -volcanoType=true (dynamic vNPUs are chosen by Volcano)");
    }
    if (use310PMixedInsert && volcanoType) {
      throw new IllegalArgumentException(
          "-use310PMixedInsert=true cannot be combined with -volcanoType=true");
    }
    if (use310PMixedInsert && shareDevCount > 1) {
      throw new IllegalArgumentException(
          "-use310PMixedInsert=true cannot be combined with -shareDevCount="
              + shareDevCount
              + " (must be 1)");
    }
    if (shareDevCount > 1 && !presetVirtualDevice) {
      throw new IllegalArgumentException(
          "-shareDevCount="
              + shareDevCount
              + " requires -presetVirtualDevice=true (sharing and dynamic vNPUs exclude each other)");
    }
    if (softShareDevConfigDir.isPresent() && shareDevCount != SOFT_SHARE_DEVICE_COUNT) {
      throw new IllegalArgumentException(
          "-softShareDevConfigDir requires -shareDevCount="
              + SOFT_SHARE_DEVICE_COUNT
              + " (got -shareDevCount="
              + shareDevCount
              + ")");
    }
    if (softShareDevConfigDir.isPresent() && !volcanoType) {
      throw new IllegalArgumentException(
          "-softShareDevConfigDir requires -volcanoType=true (soft-share pods are placed by Volcano)");
    }
  }

  private static void range(String flag, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          flag + " = " + value + ": must be in [" + min + ", " + max + "]");
    }
  }

  /**
   * The upstream defaults for a node (section 3.1); Ascend Docker Runtime absent, devices under
   * {@code /}.
   *
   * @throws IllegalArgumentException when {@code nodeName} is blank
   */
  public static MindClusterOptions defaults(String nodeName) {
    return builder(nodeName).build();
  }

  /** A builder starting from the upstream defaults ({@link #defaults(String)}) for a node. */
  public static Builder builder(String nodeName) {
    return new Builder(nodeName);
  }

  /** A builder starting from these options. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Whether Allocate answers with the Ascend Docker Runtime's env only (section 3.9): the runtime
   * is installed and 310P mixed insertion is off (upstream never uses the runtime in mixed
   * insertion mode and emits DeviceSpecs instead).
   */
  public boolean ascendDockerInUse() {
    return useAscendDocker && !use310PMixedInsert;
  }

  /**
   * Whether pods may soft-share chips ({@code -shareDevCount=100} with {@code
   * -softShareDevConfigDir}).
   */
  public boolean softShare() {
    return softShareDevConfigDir.isPresent();
  }

  /** A copy with {@code -volcanoType} and {@code -presetVirtualDevice} set (validated again). */
  public MindClusterOptions withVolcano(boolean volcano, boolean preset) {
    return toBuilder().volcanoType(volcano).presetVirtualDevice(preset).build();
  }

  /**
   * A copy with {@code -shareDevCount} and {@code -softShareDevConfigDir} set (validated again).
   */
  public MindClusterOptions withShare(int count, Optional<Path> softShareDir) {
    return toBuilder().shareDevCount(count).softShareDevConfigDir(softShareDir).build();
  }

  /** A copy with the Ascend Docker Runtime presence and the device-node root set. */
  public MindClusterOptions withRuntime(boolean ascendDocker, Path root) {
    return toBuilder().useAscendDocker(ascendDocker).devRoot(root).build();
  }

  /** A copy with another {@code -listWatchPeriod}. */
  public MindClusterOptions withListWatchPeriod(Duration period) {
    return toBuilder().listWatchPeriod(period).build();
  }

  /** A copy with {@code -use310PMixedInsert} set (validated again). */
  public MindClusterOptions withMixedInsert(boolean mixed) {
    return toBuilder().use310PMixedInsert(mixed).build();
  }

  /** A copy with {@code -hotReset} set (validated again). */
  public MindClusterOptions withHotReset(int mode) {
    return toBuilder().hotReset(mode).build();
  }

  /** A copy with {@code -enableSlowNode} set. */
  public MindClusterOptions withSlowNode(boolean enable) {
    return toBuilder().enableSlowNode(enable).build();
  }

  /** A copy with {@code HOST_IP}. */
  public MindClusterOptions withHostIp(String ip) {
    return toBuilder().hostIp(ip).build();
  }

  /**
   * Options field by field, from the upstream defaults or from other options; {@link #build()}
   * checks them as the constructor does. The setters take the record's units (durations, not flag
   * seconds).
   */
  public static final class Builder {
    private String nodeName;
    private String hostIp = "";
    private boolean volcanoType = false;
    private boolean presetVirtualDevice = true;
    private Duration listWatchPeriod = Duration.ofSeconds(5);
    private boolean autoStowing = true;
    private int hotReset = -1;
    private int shareDevCount = 1;
    private boolean use310PMixedInsert = false;
    private Duration linkdownTimeout = Duration.ofSeconds(30);
    private Duration deviceResetTimeout = Duration.ofSeconds(600);
    private Duration thirdPartyScanDelay = Duration.ofSeconds(300);
    private Optional<Path> softShareDevConfigDir = Optional.empty();
    private boolean useSingleDieMode = false;
    private boolean useAscendDocker = false;
    private Path devRoot = Path.of("/");
    private boolean enableSlowNode = false;

    private Builder(String nodeName) {
      this.nodeName = nodeName;
    }

    private Builder(MindClusterOptions o) {
      nodeName = o.nodeName;
      hostIp = o.hostIp;
      volcanoType = o.volcanoType;
      presetVirtualDevice = o.presetVirtualDevice;
      listWatchPeriod = o.listWatchPeriod;
      autoStowing = o.autoStowing;
      hotReset = o.hotReset;
      shareDevCount = o.shareDevCount;
      use310PMixedInsert = o.use310PMixedInsert;
      linkdownTimeout = o.linkdownTimeout;
      deviceResetTimeout = o.deviceResetTimeout;
      thirdPartyScanDelay = o.thirdPartyScanDelay;
      softShareDevConfigDir = o.softShareDevConfigDir;
      useSingleDieMode = o.useSingleDieMode;
      useAscendDocker = o.useAscendDocker;
      devRoot = o.devRoot;
      enableSlowNode = o.enableSlowNode;
    }

    /** Env {@code HOST_IP}; empty when unset. */
    public Builder hostIp(String ip) {
      hostIp = ip;
      return this;
    }

    /** {@code -volcanoType}. */
    public Builder volcanoType(boolean on) {
      volcanoType = on;
      return this;
    }

    /** {@code -presetVirtualDevice}. */
    public Builder presetVirtualDevice(boolean on) {
      presetVirtualDevice = on;
      return this;
    }

    /** {@code -listWatchPeriod}. */
    public Builder listWatchPeriod(Duration period) {
      listWatchPeriod = period;
      return this;
    }

    /** {@code -autoStowing}. */
    public Builder autoStowing(boolean on) {
      autoStowing = on;
      return this;
    }

    /** {@code -hotReset}: -1, 0 or 2. */
    public Builder hotReset(int mode) {
      hotReset = mode;
      return this;
    }

    /** {@code -shareDevCount}. */
    public Builder shareDevCount(int count) {
      shareDevCount = count;
      return this;
    }

    /** {@code -use310PMixedInsert}. */
    public Builder use310PMixedInsert(boolean on) {
      use310PMixedInsert = on;
      return this;
    }

    /** {@code -linkdownTimeout}. */
    public Builder linkdownTimeout(Duration timeout) {
      linkdownTimeout = timeout;
      return this;
    }

    /** {@code -deviceResetTimeout}. */
    public Builder deviceResetTimeout(Duration timeout) {
      deviceResetTimeout = timeout;
      return this;
    }

    /** {@code -thirdPartyScanDelay}. */
    public Builder thirdPartyScanDelay(Duration delay) {
      thirdPartyScanDelay = delay;
      return this;
    }

    /** {@code -softShareDevConfigDir}; empty = off. */
    public Builder softShareDevConfigDir(Optional<Path> dir) {
      softShareDevConfigDir = dir;
      return this;
    }

    /** {@code -useSingleDieMode}. */
    public Builder useSingleDieMode(boolean on) {
      useSingleDieMode = on;
      return this;
    }

    /** Env {@code ASCEND_DOCKER_RUNTIME=True}. */
    public Builder useAscendDocker(boolean on) {
      useAscendDocker = on;
      return this;
    }

    /** Root under which device nodes are checked. */
    public Builder devRoot(Path root) {
      devRoot = root;
      return this;
    }

    /** {@code -enableSlowNode}. */
    public Builder enableSlowNode(boolean on) {
      enableSlowNode = on;
      return this;
    }

    /**
     * The options.
     *
     * @throws IllegalArgumentException one line naming the flag(s) when a value or combination is
     *     invalid
     */
    public MindClusterOptions build() {
      return new MindClusterOptions(
          nodeName,
          hostIp,
          volcanoType,
          presetVirtualDevice,
          listWatchPeriod,
          autoStowing,
          hotReset,
          shareDevCount,
          use310PMixedInsert,
          linkdownTimeout,
          deviceResetTimeout,
          thirdPartyScanDelay,
          softShareDevConfigDir,
          useSingleDieMode,
          useAscendDocker,
          devRoot,
          enableSlowNode);
    }
  }
}
