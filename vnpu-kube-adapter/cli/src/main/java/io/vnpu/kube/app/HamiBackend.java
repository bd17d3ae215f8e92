package io.vnpu.kube.app;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vnpu.api.fault.FileManualSeparationStore;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.health.ManualSeparationStore;
import io.vnpu.kube.agent.AgentEnvironment;
import io.vnpu.kube.agent.LimiterOptions;
import io.vnpu.kube.agent.ResourceBackend;
import io.vnpu.kube.faults.KubeFaultHandling;
import io.vnpu.kube.hami.ExecutorScheduler;
import io.vnpu.kube.hami.HamiComponents;
import io.vnpu.kube.hami.HamiOptions;
import io.vnpu.kube.hami.HamiSliceSource;
import io.vnpu.kube.hami.alloc.SoftSplitLayout;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.limiter.ElfSharedObject;
import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.limiter.LimiterProvisioning;
import io.vnpu.kube.limiter.LimiterVerifier;
import io.vnpu.kube.metrics.CompatNames;
import io.vnpu.kube.metrics.SliceCollector;
import io.vnpu.kube.metrics.StateGauges;
import io.vnpu.kube.observe.HealthCheck;
import io.vnpu.kube.resource.QuotaRegionFactory;
import io.vnpu.kube.resource.ResourceManager;
import io.vnpu.quota.region.QuotaRegions;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The HAMi backend of the node agent: {@link HamiComponents} with a Kubernetes client from the
 * environment (in-cluster, or {@code KUBECONFIG}), one scheduler thread for the register loop and
 * the idle cleanup, and vnpu-quota regions for soft split under {@code HOOK_PATH} (default {@value
 * SoftSplitLayout#DEFAULT_HOOK_PATH}; a path inside the limiter or shared-region directory is
 * refused, those are mounted into every container).
 */
public final class HamiBackend implements ResourceBackend {
  private final KubernetesClient client;
  private final ScheduledExecutorService executor;
  private final HamiComponents components;
  private final LimiterVerifier limiter;
  private final HamiOptions options;
  private final boolean limiterRequired;
  private volatile Optional<KubeFaultHandling> faults = Optional.empty();

  /**
   * @param limiterRequired whether readiness waits for the limiter (the node soft-slices or the
   *     agent installs the limiter)
   */
  HamiBackend(
      KubernetesClient client,
      ScheduledExecutorService executor,
      HamiComponents components,
      LimiterVerifier limiter,
      HamiOptions options,
      boolean limiterRequired) {
    this.client = Objects.requireNonNull(client, "client");
    this.executor = Objects.requireNonNull(executor, "executor");
    this.components = Objects.requireNonNull(components, "components");
    this.limiter = Objects.requireNonNull(limiter, "limiter");
    this.options = Objects.requireNonNull(options, "options");
    this.limiterRequired = limiterRequired;
  }

  /** Builds the backend from what the agent loaded, reading {@code HOOK_PATH} from {@code env}. */
  public static HamiBackend create(AgentEnvironment environment, Map<String, String> env) {
    return create(environment, env, new KubernetesClientBuilder().build());
  }

  /** As {@link #create(AgentEnvironment, Map)} with a given client (closed with the backend). */
  public static HamiBackend create(
      AgentEnvironment environment, Map<String, String> env, KubernetesClient client) {
    String hookPath = env.getOrDefault("HOOK_PATH", SoftSplitLayout.DEFAULT_HOOK_PATH);
    LimiterOptions lo = environment.options().limiter();
    LimiterVerifier limiter =
        LimiterProvisioning.provision(
            LimiterFiles.hami(lo.hostDir()),
            lo.install()
                ? Optional.of(lo.assetsDir().resolve(LimiterFiles.LIBRARY))
                : Optional.empty(),
            ElfSharedObject.thisMachine());
    HamiOptions options =
        HamiOptions.defaults(environment.options().nodeName())
            .withSoftSplit(
                SoftSplitLayout.upstream(Path.of(hookPath)).withLimiterDir(lo.hostDir().toString()),
                Optional.of(QuotaRegionFactory.writing(new QuotaRegions())))
            .withIdleVnpu(
                environment.options().checkIdleVnpuInterval(),
                HamiOptions.defaults("n").idleVnpuGrace())
            .withReportTimeOffset(environment.options().reportTimeOffset())
            .withLimiterGate(limiter);
    ScheduledExecutorService executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "hami-register");
              t.setDaemon(true);
              return t;
            });
    HamiNodeSettings node =
        HamiNodeSettings.from(environment.deviceConfig(), environment.nodeSettings());
    HamiComponents components =
        new HamiComponents(
            client,
            environment.deviceManager(),
            environment.health(),
            HamiChipSettings.from(environment.chip()),
            node,
            options,
            Clock.systemDefaultZone(),
            new ExecutorScheduler(executor));
    HamiBackend backend =
        new HamiBackend(
            client, executor, components, limiter, options, node.hamiVnpuCore() || lo.install());
    if (environment.health() instanceof HealthMonitor monitor) {
      // the fault engine over DCMI: Events, mindx-dl-fault-config reloads, persisted separation
      backend.faults =
          Optional.of(
              KubeFaultHandling.start(
                  client,
                  environment.options().nodeName(),
                  monitor,
                  manualSeparationStore(env),
                  env,
                  Clock.systemUTC()));
    }
    return backend;
  }

  /**
   * Where ManuallySeparateNPU chips are kept: the file named by {@code VNPU_MANUAL_SEPARATION_FILE}
   * (a hostPath, so that it survives restarts), else memory only.
   */
  static ManualSeparationStore manualSeparationStore(Map<String, String> env) {
    String file = env.get("VNPU_MANUAL_SEPARATION_FILE");
    return file == null || file.isBlank()
        ? ManualSeparationStore.inMemory()
        : new FileManualSeparationStore(Path.of(file));
  }

  /** The limiter check soft-split Allocate runs; its last outcome feeds readiness and metrics. */
  public LimiterVerifier limiter() {
    return limiter;
  }

  /**
   * Per-slice series of the node's soft slices ({@link HamiSliceSource}; compute registries read
   * from the host's shared-region directory) and {@code vnpu_limiter_ready}.
   */
  @Override
  public void registerMetrics(PrometheusRegistry registry, Set<CompatNames> compat) {
    SoftSplitLayout layout = options.softLayout();
    // the agent creates the regions (and the registries, under HOOK_PATH) whenever it runs this
    // backend
    Path registryHostDir =
        options.regions().isPresent() ? layout.registryDir() : Path.of(layout.sharedRegionDir());
    registry.register(
        new SliceCollector(
            options.nodeName(),
            new HamiSliceSource(client, options.nodeName(), components.slices()),
            dir ->
                dir.equals(SoftSplitLayout.CONTAINER_SHARED_REGION)
                    ? Optional.of(registryHostDir)
                    : Optional.empty(),
            compat,
            System::nanoTime));
    StateGauges.limiterReady(registry, limiter::usable);
  }

  /**
   * {@code limiter}: {@code libvnpu.so} and {@code ld.so.preload} pass verification (when soft
   * slicing can happen).
   */
  @Override
  public Map<String, HealthCheck> readinessChecks() {
    if (!limiterRequired) return Map.of();
    return Map.of("limiter", () -> limiter.usable() ? Optional.empty() : limiter.lastProblem());
  }

  /** The one manager this backend serves (HAMi has one resource per node). */
  public ResourceManager resourceManager() {
    return components.resourceManager();
  }

  @Override
  public List<ResourceManager> resourceManagers() {
    return List.of(resourceManager());
  }

  @Override
  public void start() {
    components.start();
  }

  @Override
  public void close() {
    faults.ifPresent(KubeFaultHandling::close);
    components.close();
    executor.shutdownNow();
    client.close();
  }
}
