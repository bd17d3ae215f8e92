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

  /** Soft slicing off. */
  public DraOptions(
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
      Duration resync) {
    this(
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
        false,
        io.vnpu.kube.dra.modes.SoftCapacityNames.HAMI);
  }

  /** Nothing pinned by {@code --chip-modes}, shared counters where the API server keeps them. */
  public DraOptions(
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
      io.vnpu.kube.dra.modes.SoftCapacityNames capacityNames) {
    this(
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
        io.vnpu.kube.dra.modes.ChipModePins.NONE,
        true,
        DEFAULT_CLAIM_RECONCILE);
  }

  /** The same options with {@code --chip-modes} and {@code --shared-counters}. */
  public DraOptions withChipModes(io.vnpu.kube.dra.modes.ChipModePins pins, boolean counters) {
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
        pins,
        counters,
        claimReconcile);
  }

  /** The same options with the period of the claim check against the API server. */
  public DraOptions withClaimReconcile(Duration period) {
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
        period);
  }

  /** The same options with soft slicing on or off and the given capacity names. */
  public DraOptions withSoftSlicing(
      boolean enable, io.vnpu.kube.dra.modes.SoftCapacityNames names) {
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
        enable,
        names,
        chipModes,
        sharedCounters,
        claimReconcile);
  }

  public static final String DEFAULT_DRIVER = "npu.huawei.com";
  public static final String PROFILE_NPU = "npu";
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
}
