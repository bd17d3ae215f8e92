package io.vnpu.kube.dra.app;

import io.vnpu.kube.dra.DraOptions;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The flags of the NPU DRA kubelet plugin, shared by {@code vnpu dra} and {@link DraMain}: the
 * openFuyao driver's flags, each also read from the environment variable named in its help.
 */
public final class DraFlags {

  @Option(
      names = "--node-name",
      defaultValue = "${env:NODE_NAME}",
      paramLabel = "NAME",
      description = "This node's name (env NODE_NAME).")
  String nodeName;

  @Option(
      names = "--driver-name",
      defaultValue = "${env:DRIVER_NAME:-" + DraOptions.DEFAULT_DRIVER + "}",
      paramLabel = "NAME",
      description = "DRA driver name (env DRIVER_NAME; default: ${DEFAULT-VALUE}).")
  String driverName;

  @Option(
      names = "--cdi-root",
      defaultValue = "${env:CDI_ROOT:-" + DraOptions.DEFAULT_CDI_ROOT + "}",
      paramLabel = "DIR",
      description =
          "Directory the container runtime reads CDI specs from (env CDI_ROOT;"
              + " default: ${DEFAULT-VALUE}).")
  Path cdiRoot;

  @Option(
      names = "--device-profile",
      defaultValue = "${env:DEVICE_PROFILE:-" + DraOptions.PROFILE_NPU + "}",
      paramLabel = "PROFILE",
      description =
          "Device profile (env DEVICE_PROFILE; default:"
              + " ${DEFAULT-VALUE}; only npu: whole NPUs).")
  String deviceProfile;

  @Option(
      names = "--kubelet-registrar-directory-path",
      defaultValue =
          "${env:KUBELET_REGISTRAR_DIRECTORY_PATH:-" + DraOptions.DEFAULT_REGISTRAR_DIR + "}",
      paramLabel = "DIR",
      description =
          "The kubelet's plugin registration directory (env"
              + " KUBELET_REGISTRAR_DIRECTORY_PATH; default: ${DEFAULT-VALUE}).")
  Path registrarDir;

  @Option(
      names = "--kubelet-plugins-directory-path",
      defaultValue =
          "${env:KUBELET_PLUGINS_DIRECTORY_PATH:-" + DraOptions.DEFAULT_PLUGINS_DIR + "}",
      paramLabel = "DIR",
      description =
          "Parent of the plugin's data directory (env"
              + " KUBELET_PLUGINS_DIRECTORY_PATH; default: ${DEFAULT-VALUE}).")
  Path pluginsDir;

  @Option(
      names = "--enable-hard-vnpu",
      defaultValue = "${env:ENABLE_HARD_VNPU:-false}",
      fallbackValue = "true",
      arity = "0..1",
      paramLabel = "BOOL",
      description =
          "Hard vNPU by memCapacity on 910B chips (env ENABLE_HARD_VNPU): shared"
              + " allocations get a template vNPU created at prepare, with the templates of"
              + " --device-config or else the bundled table (HAMi's chip entries).")
  boolean enableHardVnpu;

  @Option(
      names = "--enable-soft-slicing",
      defaultValue = "${env:ENABLE_SOFT_SLICING:-false}",
      fallbackValue = "true",
      arity = "0..1",
      paramLabel = "BOOL",
      description =
          "Soft slicing (env ENABLE_SOFT_SLICING): chips are published shareable by"
              + " consumable memory (bytes) and AI-core percent; each share gets a quota region the"
              + " limiter (libvnpu.so, preloaded through the CDI edits) enforces. With"
              + " --enable-hard-vnpu too, chips that cannot be hard-split are soft and the others"
              + " follow --shared-counters and --chip-modes.")
  boolean enableSoftSlicing;

  @Option(
      names = "--capacity-names",
      defaultValue = "${env:CAPACITY_NAMES:-hami}",
      paramLabel = "NAMES",
      description =
          "Names of the soft capacities (env CAPACITY_NAMES): hami = memory, cores"
              + " (HAMi's driver); openfuyao = memCapacity, coreCapacity (openFuyao's). Default:"
              + " ${DEFAULT-VALUE}.")
  String capacityNames;

  @Option(
      names = "--limiter-dir",
      defaultValue =
          "${env:LIMITER_DIR:-" + io.vnpu.kube.agent.LimiterOptions.DEFAULT_HOST_DIR + "}",
      paramLabel = "DIR",
      description =
          "Host directory of libvnpu.so and ld.so.preload that soft-sliced containers"
              + " mount (env LIMITER_DIR; default: ${DEFAULT-VALUE}); read with"
              + " --enable-soft-slicing.")
  Path limiterDir;

  @Option(
      names = "--limiter-assets",
      defaultValue =
          "${env:HAMI_VNPU_ASSETS_PATH:-" + io.vnpu.kube.agent.LimiterOptions.DEFAULT_ASSETS + "}",
      paramLabel = "DIR",
      description =
          "Directory in the image holding libvnpu.so, installed into --limiter-dir at"
              + " start (env HAMI_VNPU_ASSETS_PATH; default: ${DEFAULT-VALUE}).")
  Path limiterAssets;

  @Option(
      names = "--install-limiter",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "Install the limiter into --limiter-dir at start (default: ${DEFAULT-VALUE});"
              + " --no-install-limiter only verifies files an operator provides.")
  boolean installLimiter;

  @Option(
      names = "--chip-modes",
      defaultValue = "${env:CHIP_MODES}",
      paramLabel = "LIST",
      description =
          "Sharing mode pinned per chip (env CHIP_MODES): <phy IDs>=<mode>,... with phy"
              + " IDs one ID or a range (0-3) and mode whole, hard or soft, e.g. 0-3=hard,4-7=soft;"
              + " unlisted chips follow the default rule (docs/dra-sharing-modes.md).")
  String chipModes;

  @Option(
      names = "--shared-counters",
      defaultValue = "${env:SHARED_COUNTERS:-auto}",
      paramLabel = "MODE",
      description =
          "auto: a chip that can be hard and soft is offered both ways, kept exclusive"
              + " by per-chip shared counters, falling back to one mode per chip when the API server"
              + " drops them; off: one mode per chip (for schedulers without kubernetes#139040)"
              + " (env SHARED_COUNTERS; default: ${DEFAULT-VALUE}).")
  String sharedCounters;

  @Option(
      names = "--device-config",
      defaultValue = "${env:DEVICE_CONFIG}",
      paramLabel = "FILE",
      description =
          "HAMi device-config.yaml (or its ConfigMap) with the vNPU templates per chip"
              + " (env DEVICE_CONFIG); read with --enable-hard-vnpu (default: the bundled table).")
  Path deviceConfig;

  @Option(
      names = "--healthcheck-port",
      defaultValue = "${env:HEALTHCHECK_PORT:--1}",
      paramLabel = "PORT",
      description =
          "gRPC liveness port: -1 off, 0 random, >0 fixed (env"
              + " HEALTHCHECK_PORT; default: ${DEFAULT-VALUE}).")
  int healthcheckPort;

  @Option(
      names = "--pod-uid",
      defaultValue = "${env:POD_UID}",
      paramLabel = "UID",
      description =
          "This pod's UID (env POD_UID, from the downward API): per-pod socket names so"
              + " a rolling update (maxSurge 1) registers the new plugin next to the old one"
              + " (kubelet 1.33+); default: the standard socket names, one plugin per node.")
  String podUid;

  @Option(
      names = "--metrics-port",
      defaultValue = "${env:METRICS_PORT:--1}",
      paramLabel = "PORT",
      description =
          "HTTP port of /metrics, /livez and /readyz: -1 off, 0"
              + " random, >0 fixed (env METRICS_PORT; default: ${DEFAULT-VALUE}).")
  int metricsPort;

  @Option(
      names = "--metrics-address",
      defaultValue = "${env:METRICS_ADDRESS:-0.0.0.0}",
      paramLabel = "ADDR",
      description = "Address the metrics port binds (default:" + " ${DEFAULT-VALUE}).")
  String metricsAddress;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description =
          "Kubeconfig file (default: the files env KUBECONFIG lists, merged as kubectl merges"
              + " them; without it the in-cluster configuration).")
  Path kubeconfig;

  @Option(
      names = "--dcmi-library",
      paramLabel = "FILE",
      description = "Path of libdcmi.so (default: the driver's standard locations).")
  Path dcmiLibrary;

  @Option(
      names = "--simulate",
      converter = io.vnpu.kube.app.SimulatorProfileConverter.class,
      arity = "0..1",
      preprocessor = io.vnpu.kube.app.NoOptionAsValue.class,
      fallbackValue = "910B3x8",
      paramLabel = "PROFILE",
      description =
          "Run on the bundled simulated node (profile, default 910B3x8): its device nodes"
              + " are under the simulator's directory (character devices when run as root)."
              + " Never simulates unless given.")
  String simulate;

  /** {@code --pod-uid}, empty when not given (or given empty). */
  public Optional<String> podUid() {
    return podUid == null || podUid.isEmpty() ? Optional.empty() : Optional.of(podUid);
  }

  /**
   * The socket layout these flags denote: per-pod names with {@code --pod-uid}.
   *
   * @throws IllegalArgumentException naming the flag or the path when one is invalid or too long
   */
  public io.vnpu.kube.dra.kubelet.PluginSockets sockets(DraOptions options) {
    return podUid()
        .map(
            uid ->
                io.vnpu.kube.dra.kubelet.PluginSockets.rollingUpdate(
                    options.driverName(), options.registrarDir(), options.pluginsDir(), uid))
        .orElseGet(
            () ->
                io.vnpu.kube.dra.kubelet.PluginSockets.of(
                    options.driverName(), options.registrarDir(), options.pluginsDir()));
  }

  /** The device-config.yaml file, if given. */
  public Optional<Path> deviceConfig() {
    return Optional.ofNullable(deviceConfig);
  }

  /** The kubeconfig file, if given. */
  /**
   * The metrics port, empty when off.
   *
   * @throws IllegalArgumentException naming {@code --metrics-port} when outside -1..65535
   */
  public java.util.OptionalInt metricsPort() {
    if (metricsPort < -1 || metricsPort > 65535) {
      throw new IllegalArgumentException(
          "--metrics-port = "
              + metricsPort
              + ": must be -1 (off), 0 (random) or a port up to 65535");
    }
    return metricsPort < 0 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(metricsPort);
  }

  /** The address the metrics port binds. */
  public String metricsAddress() {
    return metricsAddress;
  }

  public Optional<Path> kubeconfig() {
    return Optional.ofNullable(kubeconfig);
  }

  /** The libdcmi.so path, if given. */
  public Optional<Path> dcmiLibrary() {
    return Optional.ofNullable(dcmiLibrary);
  }

  /** The simulator profile, if simulating. */
  public Optional<String> simulate() {
    return Optional.ofNullable(simulate);
  }

  /**
   * The plugin options these flags denote.
   *
   * @param devRoot where the device nodes are ({@code /dev}, or the simulator's directory)
   * @param mountRoot where the driver files are ({@code /})
   * @throws IllegalArgumentException naming the flag and value when one is invalid
   */
  public DraOptions toOptions(Path devRoot, Path mountRoot) {
    return DraOptions.builder(nodeName)
        .driverName(driverName)
        .cdiRoot(cdiRoot)
        .deviceProfile(deviceProfile)
        .registrarDir(registrarDir)
        .pluginsDir(pluginsDir)
        .enableHardVnpu(enableHardVnpu)
        .healthcheckPort(healthcheckPort)
        .devRoot(devRoot)
        .mountRoot(mountRoot)
        .enableSoftSlicing(enableSoftSlicing)
        .capacityNames(io.vnpu.kube.dra.modes.SoftCapacityNames.parse(capacityNames))
        .chipModes(
            io.vnpu.kube.dra.modes.ChipModePins.parse(chipModes, enableHardVnpu, enableSoftSlicing))
        .sharedCounters(sharedCounters())
        .build();
  }

  /**
   * {@code --shared-counters}: true for {@code auto}, false for {@code off}.
   *
   * @throws IllegalArgumentException naming the flag and value otherwise
   */
  boolean sharedCounters() {
    return switch (sharedCounters == null ? "auto" : sharedCounters) {
      case "auto" -> true;
      case "off" -> false;
      default ->
          throw new IllegalArgumentException(
              "--shared-counters = " + sharedCounters + ": unknown (known: auto, off)");
    };
  }

  /** The limiter's host directory and container path (hami-vnpu-core layout). */
  public io.vnpu.kube.limiter.LimiterFiles limiterFiles() {
    return io.vnpu.kube.limiter.LimiterFiles.hami(limiterDir);
  }

  /** The library to install into {@link #limiterFiles()}, empty with --no-install-limiter. */
  public Optional<Path> limiterSource() {
    return installLimiter
        ? Optional.of(limiterAssets.resolve(io.vnpu.kube.limiter.LimiterFiles.LIBRARY))
        : Optional.empty();
  }
}
