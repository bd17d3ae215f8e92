package io.vnpu.kube.dra;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Settings of the NPU DRA kubelet plugin (the openFuyao driver's flags; see {@code vnpu dra}).
 *
 * @param nodeName this node; pool name, slice {@code spec.nodeName}, owner of the slices
 * @param driverName DRA driver name, a lowercase DNS subdomain of at most 63 characters
 * @param cdiRoot directory the container runtime reads CDI specs from
 * @param deviceProfile device profile; only {@code npu} (whole NPUs) exists; the CDI class
 * @param registrarDir the kubelet's plugin registration directory
 * @param pluginsDir parent of the plugin's data directory {@code <pluginsDir>/<driverName>}
 * @param enableHardVnpu publish 910B chips as shareable by {@code memCapacity} and create a
 *     template vNPU per shared allocation at prepare
 * @param healthcheckPort gRPC liveness port: negative off, 0 random, positive fixed
 * @param devRoot host directory of the NPU device nodes ({@code /dev}; the simulator's device
 *     directory under {@code --simulate})
 * @param mountRoot host root the driver mount paths are resolved against ({@code /})
 * @param resync period of the full ResourceSlice sync
 * @param enableSoftSlicing publish chips for soft sharing by consumable memory and AI-core percent,
 *     enforced by the limiter through a quota region per share ({@code --enable-soft-slicing});
 *     with {@code enableHardVnpu} as well, chips that can be hard-split are hard, the others soft
 *     ({@link io.vnpu.kube.dra.modes.ChipModes})
 * @param capacityNames names of the soft capacities ({@code --capacity-names})
 * @param chipModes sharing modes pinned by phy ID ({@code --chip-modes})
 * @param sharedCounters offer a chip in two modes kept exclusive by per-chip shared counters where
 *     the API server keeps them ({@code --shared-counters=auto}); false: one mode per chip ({@code
 *     off}); docs/dra-sharing-modes.md
 * @param claimReconcile period of the check of the prepared claims against the API server (also run
 *     at start): what a claim gone without NodeUnprepareResources holds is released ({@link
 *     io.vnpu.kube.dra.claims.ClaimPresence})
 */
public record DraOptions(
    String nodeName,
    String driverName,
    Path cdiRoot,
    String deviceProfile,
    Path registrarDir,
    Path pluginsDir,
    boolean enableHardVnpu,
    int healthcheckPort,
    Path devRoot,
    Path mountRoot,
    Duration resync,
    boolean enableSoftSlicing,
    io.vnpu.kube.dra.modes.SoftCapacityNames capacityNames,
    io.vnpu.kube.dra.modes.ChipModePins chipModes,
    boolean sharedCounters,
    Duration claimReconcile) {

  /** Default of {@link #claimReconcile}: one GET per prepared claim per period and node. */
  public static final Duration DEFAULT_CLAIM_RECONCILE = Duration.ofMinutes(2);

  /** A builder with the openFuyao driver's defaults for a node. */
  public static Builder builder(String nodeName) {
    return new Builder(nodeName);
  }

  /** A builder starting from these options. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The same options with {@code --chip-modes} and {@code --shared-counters}. */
  public DraOptions withChipModes(io.vnpu.kube.dra.modes.ChipModePins pins, boolean counters) {
    return toBuilder().chipModes(pins).sharedCounters(counters).build();
  }

  /** The same options with the period of the claim check against the API server. */
  public DraOptions withClaimReconcile(Duration period) {
    return toBuilder().claimReconcile(period).build();
  }

  /** The same options with soft slicing on or off and the given capacity names. */
  public DraOptions withSoftSlicing(
      boolean enable, io.vnpu.kube.dra.modes.SoftCapacityNames names) {
    return toBuilder().enableSoftSlicing(enable).capacityNames(names).build();
  }

  public static final String DEFAULT_DRIVER = "npu.huawei.com";
  public static final String PROFILE_NPU = "npu";

  /** Default of {@link #cdiRoot}. */
  public static final String DEFAULT_CDI_ROOT = "/etc/cdi";

  /** Default of {@link #registrarDir}. */
  public static final String DEFAULT_REGISTRAR_DIR = "/var/lib/kubelet/plugins_registry";

  /** Default of {@link #pluginsDir}. */
  public static final String DEFAULT_PLUGINS_DIR = "/var/lib/kubelet/plugins";

  /** Default of {@link #resync}. */
  public static final Duration DEFAULT_RESYNC = Duration.ofSeconds(30);

  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  /**
   * @throws IllegalArgumentException naming the flag and value when a setting is invalid
   */
  public DraOptions {
    Objects.requireNonNull(cdiRoot, "cdiRoot");
    Objects.requireNonNull(registrarDir, "registrarDir");
    Objects.requireNonNull(pluginsDir, "pluginsDir");
    Objects.requireNonNull(devRoot, "devRoot");
    Objects.requireNonNull(mountRoot, "mountRoot");
    Objects.requireNonNull(resync, "resync");
    Objects.requireNonNull(capacityNames, "capacityNames");
    Objects.requireNonNull(chipModes, "chipModes");
    Objects.requireNonNull(claimReconcile, "claimReconcile");
    if (claimReconcile.isNegative() || claimReconcile.isZero()) {
      throw new IllegalArgumentException(
          "claim reconcile period = " + claimReconcile + ": must be positive");
    }
    if (nodeName == null || nodeName.isBlank()) {
      throw new IllegalArgumentException("--node-name: required (or env NODE_NAME)");
    }
    if (driverName == null
        || driverName.length() > 63
        || !DNS_SUBDOMAIN.matcher(driverName).matches()) {
      throw new IllegalArgumentException(
          "--driver-name = "
              + driverName
              + ": must be a lowercase DNS subdomain of at most 63 characters");
    }
    // the kubelet, the container runtime and containers resolve these paths elsewhere (the
    // registration endpoint, CDI specs, the registry path a region names): relative would be
    // relative to this process only
    absolute("--cdi-root", cdiRoot);
    absolute("--kubelet-registrar-directory-path", registrarDir);
    absolute("--kubelet-plugins-directory-path", pluginsDir);
    if (!PROFILE_NPU.equals(deviceProfile)) {
      throw new IllegalArgumentException(
          "--device-profile = " + deviceProfile + ": unknown profile (known: " + PROFILE_NPU + ")");
    }
    if (healthcheckPort > 65535) {
      throw new IllegalArgumentException(
          "--healthcheck-port = "
              + healthcheckPort
              + ": must be -1 (off), 0 (random) or a port up to 65535");
    }
  }

  private static void absolute(String flag, Path p) {
    if (!p.isAbsolute()) {
      throw new IllegalArgumentException(flag + " = " + p + ": must be an absolute path");
    }
  }

  /**
   * Options field by field, from the driver's defaults (the flags' defaults of {@code vnpu dra}:
   * whole NPUs only, health check off, device nodes under {@code /dev}, driver files under {@code
   * /}) or from other options; {@link #build()} checks them as the constructor does.
   */
  public static final class Builder {
    private String nodeName;
    private String driverName = DEFAULT_DRIVER;
    private Path cdiRoot = Path.of(DEFAULT_CDI_ROOT);
    private String deviceProfile = PROFILE_NPU;
    private Path registrarDir = Path.of(DEFAULT_REGISTRAR_DIR);
    private Path pluginsDir = Path.of(DEFAULT_PLUGINS_DIR);
    private boolean enableHardVnpu = false;
    private int healthcheckPort = -1;
    private Path devRoot = Path.of("/dev");
    private Path mountRoot = Path.of("/");
    private Duration resync = DEFAULT_RESYNC;
    private boolean enableSoftSlicing = false;
    private io.vnpu.kube.dra.modes.SoftCapacityNames capacityNames =
        io.vnpu.kube.dra.modes.SoftCapacityNames.HAMI;
    private io.vnpu.kube.dra.modes.ChipModePins chipModes =
        io.vnpu.kube.dra.modes.ChipModePins.NONE;
    private boolean sharedCounters = true;
    private Duration claimReconcile = DEFAULT_CLAIM_RECONCILE;

    private Builder(String nodeName) {
      this.nodeName = nodeName;
    }

    private Builder(DraOptions o) {
      nodeName = o.nodeName;
      driverName = o.driverName;
      cdiRoot = o.cdiRoot;
      deviceProfile = o.deviceProfile;
      registrarDir = o.registrarDir;
      pluginsDir = o.pluginsDir;
      enableHardVnpu = o.enableHardVnpu;
      healthcheckPort = o.healthcheckPort;
      devRoot = o.devRoot;
      mountRoot = o.mountRoot;
      resync = o.resync;
      enableSoftSlicing = o.enableSoftSlicing;
      capacityNames = o.capacityNames;
      chipModes = o.chipModes;
      sharedCounters = o.sharedCounters;
      claimReconcile = o.claimReconcile;
    }

    /** {@code --driver-name}. */
    public Builder driverName(String name) {
      driverName = name;
      return this;
    }

    /** {@code --cdi-root}. */
    public Builder cdiRoot(Path dir) {
      cdiRoot = dir;
      return this;
    }

    /** {@code --device-profile}. */
    public Builder deviceProfile(String profile) {
      deviceProfile = profile;
      return this;
    }

    /** {@code --kubelet-registrar-directory-path}. */
    public Builder registrarDir(Path dir) {
      registrarDir = dir;
      return this;
    }

    /** {@code --kubelet-plugins-directory-path}. */
    public Builder pluginsDir(Path dir) {
      pluginsDir = dir;
      return this;
    }

    /** {@code --enable-hard-vnpu}. */
    public Builder enableHardVnpu(boolean on) {
      enableHardVnpu = on;
      return this;
    }

    /** {@code --healthcheck-port}: negative off, 0 random, positive fixed. */
    public Builder healthcheckPort(int port) {
      healthcheckPort = port;
      return this;
    }

    /** Host directory of the NPU device nodes. */
    public Builder devRoot(Path dir) {
      devRoot = dir;
      return this;
    }

    /** Host root the driver mount paths are resolved against. */
    public Builder mountRoot(Path dir) {
      mountRoot = dir;
      return this;
    }

    /** Period of the full ResourceSlice sync. */
    public Builder resync(Duration period) {
      resync = period;
      return this;
    }

    /** {@code --enable-soft-slicing}. */
    public Builder enableSoftSlicing(boolean on) {
      enableSoftSlicing = on;
      return this;
    }

    /** {@code --capacity-names}. */
    public Builder capacityNames(io.vnpu.kube.dra.modes.SoftCapacityNames names) {
      capacityNames = names;
      return this;
    }

    /** {@code --chip-modes}. */
    public Builder chipModes(io.vnpu.kube.dra.modes.ChipModePins pins) {
      chipModes = pins;
      return this;
    }

    /** {@code --shared-counters}: true for {@code auto}. */
    public Builder sharedCounters(boolean on) {
      sharedCounters = on;
      return this;
    }

    /** Period of the prepared claims' check against the API server. */
    public Builder claimReconcile(Duration period) {
      claimReconcile = period;
      return this;
    }

    /**
     * The options.
     *
     * @throws IllegalArgumentException naming the flag and value when a setting is invalid
     */
    public DraOptions build() {
      return new DraOptions(
          nodeName,
          driverName,
          cdiRoot,
          deviceProfile,
          registrarDir,
          pluginsDir,
          enableHardVnpu,
          healthcheckPort,
          devRoot,
          mountRoot,
          resync,
          enableSoftSlicing,
          capacityNames,
          chipModes,
          sharedCounters,
          claimReconcile);
    }
  }
}
