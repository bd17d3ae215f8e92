package io.vnpu.kube.dra.app;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vnpu.api.config.ConfigException;
import io.vnpu.api.config.DeviceConfig;
import io.vnpu.api.config.DeviceConfigLoader;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.model.Npu;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.DcmiNodeSelector;
import io.vnpu.dcmi.PcieInfo;
import io.vnpu.kube.app.KubeconfigFile;
import io.vnpu.kube.dra.DraOptions;
import io.vnpu.kube.dra.DraPlugin;
import io.vnpu.kube.dra.devices.NpuDeviceFacts;
import io.vnpu.kube.dra.state.BootId;
import io.vnpu.kube.metrics.OpsServer;
import io.vnpu.kube.metrics.RequestMetrics;
import io.vnpu.kube.observe.HealthCheck;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the NPU DRA kubelet plugin in the foreground until SIGTERM/SIGINT: the composition root of
 * {@code vnpu dra} and {@link DraMain}. Exit codes: 143 stopped by SIGTERM (the JVM's status after
 * the shutdown hook closed the plugin), {@value #EXIT_STARTUP_FAILED} startup failed, {@value
 * #EXIT_USAGE} a flag is invalid.
 *
 * <p>With {@code --simulate} the simulated {@code libdcmi.so} is used, the NPU device nodes are the
 * ones it creates in {@code <simulator root>/dev} ({@code dcmi_init}: character devices when run as
 * root, else empty stand-in files; native/dcmi-sim/README.md), and no driver files are mounted.
 */
public final class DraLauncher {
  public static final int EXIT_OK = 0;
  public static final int EXIT_STARTUP_FAILED = 1;
  public static final int EXIT_USAGE = 2;

  private static final Logger log = LoggerFactory.getLogger(DraLauncher.class);

  private final DcmiNodeSelector selector;
  private final PrintWriter err;

  /**
   * @param selector decides between the installed driver and the bundled simulator
   */
  public DraLauncher(DcmiNodeSelector selector, PrintWriter err) {
    this.selector = selector;
    this.err = err;
  }

  /** Runs until a signal; returns the exit code. */
  public int run(DraFlags flags, String command) {
    Path devRoot = Path.of("/dev");
    Path mountRoot = Path.of("/");
    DcmiNodeSelector.Selection selection;
    Optional<DcmiNodeSelector.OpenNode> simulated = Optional.empty();
    DraOptions options;
    DeviceConfig deviceConfig = new DeviceConfig(false, List.of());
    Config kubeConfig;
    try {
      // flags first: a usage error is reported as such, before any driver is looked for
      options = flags.toOptions(devRoot, mountRoot);
      flags.sockets(options);
      flags.metricsPort();
      kubeConfig = KubeconfigFile.load(flags.kubeconfig(), System.getenv());
      if (flags.enableHardVnpu && flags.deviceConfig().isPresent()) {
        deviceConfig =
            new DeviceConfigLoader(w -> log.warn("{}", w)).load(flags.deviceConfig().get()).value();
      } else if (flags.enableHardVnpu) {
        // openFuyao's flag set has no --device-config: its manifests must start as they are
        deviceConfig = io.vnpu.kube.dra.vnpu.BundledTemplates.load();
        log.info(
            "--enable-hard-vnpu without --device-config: the bundled vNPU template table"
                + " ({} chip models)",
            deviceConfig.chips().size());
      }
      selection =
          selector.select(flags.dcmiLibrary(), flags.simulate(), DcmiNodeSelector.Fallback.NONE);
      if (selection.simulated()) {
        // the simulated node is always ready; its dcmi_init made the device nodes in <root>/dev
        simulated = Optional.of(selector.open(selection, Optional.empty(), log::info));
        Path simRoot = simulated.get().simulator().orElseThrow().root();
        devRoot = simRoot.resolve("dev");
        mountRoot = simRoot.resolve("host");
      }
      options = flags.toOptions(devRoot, mountRoot);
      flags.sockets(options);
    } catch (IllegalArgumentException | ConfigException e) {
      say(command + ": " + e.getMessage());
      simulated.ifPresent(DcmiNodeSelector.OpenNode::close);
      return EXIT_USAGE;
    } catch (RuntimeException e) {
      say(command + ": " + e.getMessage());
      return EXIT_STARTUP_FAILED;
    }
    KubernetesClient client;
    try {
      client = new KubernetesClientBuilder().withConfig(kubeConfig).build();
    } catch (RuntimeException e) {
      say(
          command
              + ": "
              + flags
                  .kubeconfig()
                  .map(p -> "--kubeconfig " + p)
                  .orElse(
                      Optional.ofNullable(System.getenv("KUBECONFIG"))
                          .map(v -> "KUBECONFIG=" + v)
                          .orElse("in-cluster configuration"))
              + ": "
              + e.getMessage());
      return EXIT_STARTUP_FAILED;
    }
    AtomicReference<DcmiDeviceManager> dcmi = new AtomicReference<>();
    NpuDeviceFacts facts = npu -> pciBusId(dcmi.get(), npu);
    Optional<DcmiNodeSelector.OpenNode> simNode = simulated;
    io.vnpu.kube.limiter.LimiterFiles limiterFiles = flags.limiterFiles();
    io.vnpu.kube.limiter.LimiterVerifier limiterGate = null;
    if (options.enableSoftSlicing()) {
      // a limiter problem does not stop the plugin: soft shares are refused naming the file
      limiterGate =
          io.vnpu.kube.limiter.LimiterProvisioning.provision(
              limiterFiles,
              flags.limiterSource(),
              io.vnpu.kube.limiter.ElfSharedObject.thisMachine());
    }
    AtomicReference<DraPlugin> self = new AtomicReference<>();
    AtomicReference<HealthMonitor> health = new AtomicReference<>();
    DraPlugin.Builder built =
        DraPlugin.builder(options, client)
            .opener(
                () -> {
                  // the driver may not be ready at boot: the plugin retries this with backoff
                  DcmiDeviceManager m =
                      simNode.isPresent()
                          ? simNode.get().deviceManager()
                          : selector.open(selection, Optional.empty(), log::info).deviceManager();
                  dcmi.set(m);
                  if (health.get() == null) {
                    // chip health (device taints) comes from the same driver, once it is open
                    health.set(DraHealthMonitor.start(m, Clock.systemUTC()));
                    self.get().watchHealth(health.get());
                  }
                  return (DeviceManager) m;
                })
            .facts(facts)
            .bootId(BootId.read(BootId.PROC_FILE))
            .clock(Clock.systemUTC())
            .deviceConfig(deviceConfig)
            .limiter(limiterFiles);
    flags.podUid().ifPresent(built::rollingUpdate);
    if (limiterGate != null) {
      built.limiterGate(limiterGate);
    }
    DraPlugin plugin = built.build();
    self.set(plugin);
    PrometheusRegistry registry = new PrometheusRegistry();
    OptionalInt metricsPort = flags.metricsPort();
    if (metricsPort.isPresent()) {
      plugin.measureRequests(new RequestMetrics(registry));
      if (limiterGate != null) {
        io.vnpu.kube.metrics.StateGauges.limiterReady(registry, limiterGate::usable);
        // per-slice series of the soft shares, read by the same collector as HAMi's
        registry.register(
            new io.vnpu.kube.metrics.SliceCollector(
                options.nodeName(),
                plugin.sliceSource(),
                dir ->
                    java.util.Optional.ofNullable(plugin.softSlices())
                        .flatMap(s -> s.registryHostDir(dir)),
                java.util.Set.of(),
                System::nanoTime));
      }
      // the same series as the device-plugin modes, so one alert covers every mode
      io.vnpu.kube.metrics.StateGauges.registered(
          registry,
          options.driverName(),
          () -> plugin.registrationStatus().map(r -> r.getPluginRegistered()).orElse(false));
    }
    AtomicReference<OpsServer> ops = new AtomicReference<>();
    CountDownLatch stop = new CountDownLatch(1);
    Thread hook =
        new Thread(
            () -> {
              log.info("stopping the DRA driver");
              if (ops.get() != null) {
                ops.get().close();
              }
              plugin.close();
              if (health.get() != null) {
                health.get().close();
              }
              client.close();
              stop.countDown();
            },
            "dra-shutdown");
    try {
      plugin.start();
      if (metricsPort.isPresent()) {
        HealthCheck registered =
            () ->
                plugin
                    .registrationStatus()
                    .map(
                        r ->
                            r.getPluginRegistered()
                                ? Optional.<String>empty()
                                : Optional.of("kubelet refused the registration: " + r.getError()))
                    .orElse(Optional.of("not yet registered with the kubelet"));
        ops.set(
            OpsServer.start(
                flags.metricsAddress(),
                metricsPort.getAsInt(),
                registry,
                Map.of(),
                readiness(registered, limiterGate)));
        log.info("metrics, /livez and /readyz on {}:{}", flags.metricsAddress(), ops.get().port());
      }
    } catch (IOException | RuntimeException e) {
      if (ops.get() != null) {
        ops.get().close();
      }
      say(command + ": " + e.getMessage());
      plugin.close();
      if (health.get() != null) {
        health.get().close();
      }
      client.close();
      return EXIT_STARTUP_FAILED;
    }
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      stop.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return EXIT_OK;
  }

  /**
   * {@code /readyz}: the kubelet accepted the registration, and with soft slicing the limiter files
   * pass verification (else soft shares are refused; whole chips and hard vNPUs still work).
   */
  private static Map<String, HealthCheck> readiness(
      HealthCheck registered, io.vnpu.kube.limiter.LimiterVerifier limiter) {
    if (limiter == null) {
      return Map.of("registration", registered);
    }
    return Map.of(
        "registration",
        registered,
        "limiter",
        () -> limiter.usable() ? Optional.empty() : limiter.lastProblem());
  }

  private void say(String line) {
    err.println(line);
    err.flush();
  }

  private static Optional<String> pciBusId(DcmiDeviceManager m, Npu npu) {
    if (m == null) {
      return Optional.empty();
    }
    try {
      return m.dcmi().pcieInfo(npu.cardId(), npu.deviceId()).map(PcieInfo::busId);
    } catch (RuntimeException e) {
      return Optional.empty(); // the attribute is optional; a chip without PCIe info has none
    }
  }
}
