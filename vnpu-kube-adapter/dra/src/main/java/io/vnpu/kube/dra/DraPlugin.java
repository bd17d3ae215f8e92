package io.vnpu.kube.dra;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vnpu.api.config.DeviceConfig;
import io.vnpu.api.health.ChipHealth;
import io.vnpu.api.health.HealthSource;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.kube.dra.cdi.AscendHostLayout;
import io.vnpu.kube.dra.cdi.CdiKind;
import io.vnpu.kube.dra.cdi.CdiSpecWriter;
import io.vnpu.kube.dra.cdi.DeviceNodeProbe;
import io.vnpu.kube.dra.checkpoint.CheckpointStore;
import io.vnpu.kube.dra.claims.ClaimFetcher;
import io.vnpu.kube.dra.devices.NpuDeviceFacts;
import io.vnpu.kube.dra.devices.NpuDiscovery;
import io.vnpu.kube.dra.devices.NpuInventory;
import io.vnpu.kube.dra.kubelet.KubeletPluginServer;
import io.vnpu.kube.dra.kubelet.LivenessServer;
import io.vnpu.kube.dra.kubelet.PluginSockets;
import io.vnpu.kube.dra.kubelet.ResourceHealthServer;
import io.vnpu.kube.dra.proto.registration.RegistrationStatus;
import io.vnpu.kube.dra.slices.NpuDeviceTaints;
import io.vnpu.kube.dra.slices.NpuSliceDevices;
import io.vnpu.kube.dra.slices.ResourceSlicePublisher;
import io.vnpu.kube.dra.state.ClaimPlanner;
import io.vnpu.kube.dra.state.ClaimSpecBuilder;
import io.vnpu.kube.dra.state.DeviceState;
import io.vnpu.kube.dra.vnpu.DiscoveredVnpuDriver;
import io.vnpu.kube.dra.vnpu.HardVnpuChips;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NPU DRA kubelet plugin assembled from its parts, embeddable: give it options, an API client
 * and a way to open the node's {@link DeviceManager}.
 *
 * <p>Start order: DCMI discovery (background, retried until chips appear) feeding the ResourceSlice
 * publisher; the claim state (checkpoint loaded or repaired, CDI files reconciled) before anything
 * is served; the DRA socket, then the registration socket; the liveness port. {@link #close()}
 * removes the registration socket first (the kubelet deregisters), then the DRA socket (calls under
 * way finish first), and stops publishing; ResourceSlices are left in place (the kubelet removes
 * them if the driver does not come back) and no claim is unprepared.
 *
 * <p>Rolling updates ({@link Builder#rollingUpdate}): the old and the new instance run at once with
 * sockets of their own, share the data directory and its checkpoint (every change under {@code
 * serialize.lock}, read again when the other wrote), and publish the same ResourceSlices; the
 * kubelet calls the newer one, and the older stops (SIGTERM) without touching the newer's sockets,
 * slices or claims. docs/dra.md "Upgrading the driver".
 */
public final class DraPlugin implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DraPlugin.class);

  private final DraOptions options;
  private final NpuInventory inventory = new NpuInventory();
  private final NpuDiscovery discovery;
  private final ResourceSlicePublisher publisher;
  private final NpuSliceDevices sliceDevices;
  private final HardVnpuChips hardVnpu;
  private final io.vnpu.kube.dra.modes.ChipModes modes;
  private final io.vnpu.kube.softslice.SoftSliceLayout soft; // null when soft slicing is off
  private final io.vnpu.kube.limiter.LimiterGate softGate;
  private volatile io.vnpu.kube.softslice.SoftSlices softRegions;
  private final PluginSockets sockets;
  private final CdiKind cdiKind;
  private final KubernetesClient client;
  private final String bootId;
  private final Clock clock;
  private DeviceState state;
  private final io.vnpu.kube.dra.claims.ClaimPresence presence;
  private final java.util.concurrent.ScheduledExecutorService claimChecks =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "dra-claim-check");
            t.setDaemon(true);
            return t;
          });
  private KubeletPluginServer server;
  private LivenessServer liveness;
  private io.vnpu.kube.observe.RequestObserver requestMetrics;
  private final NpuDeviceTaints taints;
  private final Object healthLock = new Object();
  private HealthSource health; // guarded by healthLock
  private AutoCloseable healthWatch; // guarded by healthLock
  private boolean started; // guarded by healthLock
  private volatile ResourceHealthServer healthServer;

  /** Period of the complete device list on a quiet health stream. */
  static final Duration HEALTH_RESEND = Duration.ofSeconds(10);

  /** {@code health_check_timeout_seconds}: the kubelet's default. */
  static final Duration HEALTH_TIMEOUT = Duration.ofSeconds(30);

  /**
   * A plugin for {@code options}, talking to the API server through {@code client}; the rest is set
   * on the builder.
   */
  public static Builder builder(DraOptions options, KubernetesClient client) {
    return new Builder(options, client);
  }

  /**
   * What a {@link DraPlugin} is made of. Required besides the options and the client: the DCMI
   * {@link #opener}, the {@link #bootId}. Everything else has the default its setter names.
   */
  public static final class Builder {
    private final DraOptions options;
    private final KubernetesClient client;
    private Callable<DeviceManager> opener;
    private NpuDeviceFacts facts = NpuDeviceFacts.NONE;
    private String bootId;
    private Clock clock = Clock.systemUTC();
    private DeviceConfig deviceConfig = new DeviceConfig(false, List.of());
    private io.vnpu.kube.limiter.LimiterFiles limiter =
        io.vnpu.kube.limiter.LimiterFiles.hami(io.vnpu.kube.limiter.LimiterFiles.HAMI_HOST_DIR);
    private io.vnpu.kube.limiter.LimiterGate limiterGate;
    private String podUid;

    private Builder(DraOptions options, KubernetesClient client) {
      this.options = Objects.requireNonNull(options, "options");
      this.client = Objects.requireNonNull(client, "client");
    }

    /** Opens the node's DCMI device manager; retried with backoff while it fails. Required. */
    public Builder opener(Callable<DeviceManager> opener) {
      this.opener = Objects.requireNonNull(opener, "opener");
      return this;
    }

    /** PCIe facts of the NPUs; default {@link NpuDeviceFacts#NONE}. */
    public Builder facts(NpuDeviceFacts facts) {
      this.facts = Objects.requireNonNull(facts, "facts");
      return this;
    }

    /** The node's boot ID ({@link io.vnpu.kube.dra.state.BootId}). Required. */
    public Builder bootId(String bootId) {
      this.bootId = Objects.requireNonNull(bootId, "bootId");
      return this;
    }

    /** Time of checkpoint stamps and health timeouts; default the system UTC clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Chip models and their vNPU templates (HAMi {@code device-config.yaml}), used with {@link
     * DraOptions#enableHardVnpu()}; default none.
     */
    public Builder deviceConfig(DeviceConfig deviceConfig) {
      this.deviceConfig = Objects.requireNonNull(deviceConfig, "deviceConfig");
      return this;
    }

    /**
     * Where the limiter lies, used with {@link DraOptions#enableSoftSlicing()}; default HAMi's host
     * directory.
     */
    public Builder limiter(io.vnpu.kube.limiter.LimiterFiles limiter) {
      this.limiter = Objects.requireNonNull(limiter, "limiter");
      return this;
    }

    /**
     * Asked before every soft share is prepared; default a {@link
     * io.vnpu.kube.limiter.LimiterVerifier} of {@link #limiter} for this machine.
     */
    public Builder limiterGate(io.vnpu.kube.limiter.LimiterGate limiterGate) {
      this.limiterGate = Objects.requireNonNull(limiterGate, "limiterGate");
      return this;
    }

    /**
     * Rolling-update mode: this instance's sockets are named after its pod UID ({@link
     * PluginSockets#rollingUpdate}), so the next version of the driver can register next to it (a
     * DaemonSet with {@code maxSurge: 1}); the checkpoint in the shared data directory is locked
     * across the instances. Default: the standard socket names, one instance per node.
     *
     * @throws IllegalArgumentException naming the value when it is not a pod UID
     */
    public Builder rollingUpdate(String podUid) {
      PluginSockets.rollingUpdate(
          options.driverName(), options.registrarDir(), options.pluginsDir(), podUid);
      this.podUid = podUid;
      return this;
    }

    /**
     * @throws IllegalStateException naming the setter when a required part is missing
     * @throws IllegalArgumentException naming the flag when a socket path is too long
     */
    public DraPlugin build() {
      if (opener == null) {
        throw new IllegalStateException("DraPlugin.builder: opener(...) is required");
      }
      if (bootId == null) {
        throw new IllegalStateException("DraPlugin.builder: bootId(...) is required");
      }
      return new DraPlugin(this);
    }
  }

  private DraPlugin(Builder b) {
    this.options = b.options;
    this.client = b.client;
    this.bootId = b.bootId;
    this.clock = b.clock;
    DraOptions options = b.options;
    io.vnpu.kube.limiter.LimiterFiles limiter = b.limiter;
    io.vnpu.kube.limiter.LimiterGate limiterGate = b.limiterGate;
    this.presence = new io.vnpu.kube.dra.claims.ClaimPresence(client);
    this.sockets =
        b.podUid == null
            ? PluginSockets.of(options.driverName(), options.registrarDir(), options.pluginsDir())
            : PluginSockets.rollingUpdate(
                options.driverName(), options.registrarDir(), options.pluginsDir(), b.podUid);
    this.cdiKind = CdiKind.of(options.driverName(), options.deviceProfile());
    this.discovery =
        new NpuDiscovery(
            b.opener,
            inventory,
            Duration.ofSeconds(1),
            Duration.ofSeconds(30),
            Duration.ofSeconds(60));
    this.publisher =
        new ResourceSlicePublisher(
            client,
            options.driverName(),
            options.nodeName(),
            options.resync(),
            Duration.ofSeconds(1));
    this.hardVnpu = new HardVnpuChips(options.enableHardVnpu(), b.deviceConfig);
    this.modes =
        new io.vnpu.kube.dra.modes.ChipModes(
            hardVnpu, options.enableSoftSlicing(), options.capacityNames(), options.chipModes());
    this.counters.set(options.sharedCounters());
    publisher.onDroppedFields(this::droppedFields);
    this.soft =
        !options.enableSoftSlicing()
            ? null
            : io.vnpu.kube.softslice.SoftSliceLayout.vnpu(sockets.dataDir(), limiter);
    this.softGate =
        limiterGate != null
            ? limiterGate
            : io.vnpu.kube.limiter.LimiterVerifier.forThisMachine(limiter);
    this.sliceDevices = new NpuSliceDevices(b.facts, modes);
    this.taints = new NpuDeviceTaints(options.driverName());
  }

  /**
   * Takes chip health from {@code source}: every published device carries the taints of its chip's
   * health ({@link NpuDeviceTaints}), republished on every change the source reports. May be called
   * once, before or after {@link #start()} (a launcher whose DCMI opens late attaches the monitor
   * when it does). Without a source devices are published untainted.
   *
   * @throws IllegalStateException when a source was already given
   */
  public void watchHealth(HealthSource source) {
    Objects.requireNonNull(source, "source");
    synchronized (healthLock) {
      if (health != null) {
        throw new IllegalStateException("a HealthSource was already given");
      }
      health = source;
      if (started) {
        attachHealth();
      }
    }
  }

  /** The health source given to {@link #watchHealth}, if any. */
  public Optional<HealthSource> healthSource() {
    synchronized (healthLock) {
      return Optional.ofNullable(health);
    }
  }

  private void attachHealth() {
    healthWatch = health.watch(chips -> republish());
    republish();
  }

  private final Object publishLock = new Object();

  /** Whether chips may be offered in two modes behind shared counters (until dropped). */
  private final java.util.concurrent.atomic.AtomicBoolean counters =
      new java.util.concurrent.atomic.AtomicBoolean();

  /**
   * The API server dropped ResourceSlice fields (the publisher has warned once per field): when the
   * chips' counters are among them, every chip is offered in one mode from now on.
   */
  private void droppedFields(java.util.Set<io.vnpu.kube.dra.slices.DroppedField> fields) {
    if (fields.stream().anyMatch(io.vnpu.kube.dra.slices.DroppedField::overCommits)
        && counters.getAndSet(false)) {
      log.warn(
          "shared counters are not kept by the API server: every chip is offered in one"
              + " sharing mode ({} or the default rule); restart the plugin once the API server"
              + " keeps them",
          io.vnpu.kube.dra.modes.ChipModePins.FLAG);
      republish();
    }
  }

  /** Whether chips are offered behind shared counters now (false after a fallback). */
  public boolean sharedCounters() {
    return counters.get();
  }

  /** Serialised so a slower caller cannot publish an older snapshot over a newer one. */
  private void republish() {
    synchronized (publishLock) {
      publishCurrent();
    }
  }

  /**
   * Every NPU's health for the kubelet: Unknown until a health source is given, the fault text
   * ({@link ChipHealth#toDeviceHealth()}) as message when unhealthy.
   */
  private List<ResourceHealthServer.DeviceReport> healthReports() {
    HealthSource h;
    synchronized (healthLock) {
      h = health;
    }
    Map<Integer, ChipHealth> chips = h == null ? Map.of() : h.chips();
    boolean c = counters.get();
    List<ResourceHealthServer.DeviceReport> out = new java.util.ArrayList<>();
    inventory
        .devices()
        .forEach(
            (chipDevice, npu) -> {
              // every device the chip is published as: npu-<phy>, and npu-<phy>-soft next to it
              List<String> names =
                  modes.offered(npu, c).size() > 1
                      ? List.of(
                          chipDevice, io.vnpu.kube.dra.devices.NpuDeviceNames.soft(npu.phyId()))
                      : List.of(chipDevice);
              for (String name : names) {
                if (h == null) {
                  out.add(
                      new ResourceHealthServer.DeviceReport(
                          options.nodeName(),
                          name,
                          ResourceHealthServer.State.UNKNOWN,
                          "chip health is not monitored"));
                  continue;
                }
                ChipHealth ch = chips.getOrDefault(npu.logicId(), ChipHealth.normal(npu.logicId()));
                var d = ch.toDeviceHealth();
                out.add(
                    new ResourceHealthServer.DeviceReport(
                        options.nodeName(),
                        name,
                        d.healthy()
                            ? ResourceHealthServer.State.HEALTHY
                            : ResourceHealthServer.State.UNHEALTHY,
                        d.healthy() ? "" : d.reason()));
              }
            });
    return out;
  }

  private void publishCurrent() {
    HealthSource h;
    synchronized (healthLock) {
      h = health;
    }
    if (!inventory.known()) {
      return; // an unknown device set is never published (it would look like an empty node)
    }
    var npus = inventory.devices().values();
    boolean c = counters.get();
    publisher.publish(
        io.vnpu.kube.dra.slices.ChipCounters.pool(
            sliceDevices.chips(npus, h == null ? Map.of() : h.chips(), taints, c), c));
    ResourceHealthServer hs = healthServer;
    if (hs != null) {
      hs.changed();
    }
  }

  /**
   * Starts everything.
   *
   * @throws IOException naming the file or socket when the checkpoint, the CDI directory or a
   *     socket cannot be used
   */
  public void start() throws IOException {
    inventory.addListener(npus -> republish());
    publisher.start();
    synchronized (healthLock) {
      started = true;
      if (health != null) {
        attachHealth();
      }
    }
    discovery.start();
    CdiSpecWriter cdi = new CdiSpecWriter(options.cdiRoot(), cdiKind);
    AscendHostLayout host =
        new AscendHostLayout(new DeviceNodeProbe(options.devRoot()), options.mountRoot());
    java.nio.file.Files.createDirectories(sockets.dataDir());
    if (soft != null) {
      softRegions =
          new io.vnpu.kube.softslice.SoftSlices(
              soft,
              io.vnpu.kube.resource.QuotaRegionFactory.writing(
                  new io.vnpu.quota.region.QuotaRegions()),
              softGate);
    }
    DeviceState.Builder opening =
        DeviceState.builder()
            .store(new CheckpointStore(sockets.dataDir().resolve(CheckpointStore.FILE_NAME), clock))
            .cdi(cdi)
            .specs(new ClaimSpecBuilder(cdiKind, host, soft))
            .planner(
                new ClaimPlanner(options.driverName(), options.nodeName(), cdiKind, modes, soft))
            .inventory(inventory)
            .poolName(options.nodeName())
            .bootId(bootId)
            .lockTimeout(Duration.ofSeconds(30))
            .vnpus(new DiscoveredVnpuDriver(discovery));
    if (softRegions != null) opening.softRegions(softRegions);
    state = opening.open();
    // vNPU records the checkpoint could not vouch for are checked once DCMI answers
    DeviceState opened = state;
    inventory.addListener(npus -> opened.verifyVnpus());
    if (inventory.known()) {
      opened.verifyVnpus();
    }
    claimChecks.scheduleWithFixedDelay(
        this::reconcileClaims,
        0,
        options.claimReconcile().toMillis(),
        java.util.concurrent.TimeUnit.MILLISECONDS);
    healthServer =
        new ResourceHealthServer(this::healthReports, HEALTH_RESEND, HEALTH_TIMEOUT, clock);
    server =
        new KubeletPluginServer(
            sockets,
            options.driverName(),
            measured(
                new NpuDriver(
                    new ClaimFetcher(client),
                    state,
                    new io.vnpu.kube.dra.claims.ClaimStatusWriter(
                        client, options.driverName(), options.nodeName()),
                    inventory::find)),
            Duration.ofSeconds(1),
            Optional.of(healthServer));
    server.start();
    if (options.healthcheckPort() >= 0) {
      liveness = new LivenessServer(options.healthcheckPort(), sockets);
    }
    log.info(
        "DRA driver {} started on node {} (CDI {} in {})",
        options.driverName(),
        options.nodeName(),
        cdiKind.kind(),
        options.cdiRoot());
  }

  /**
   * Releases what prepared claims hold whose ResourceClaim is gone from the API server (deleted, or
   * replaced by one with another UID) without NodeUnprepareResources: as an unprepare, so their
   * vNPUs, soft shares and CDI specs go and the chips are free for the claims the scheduler now
   * allocates there. Run at start and every {@link DraOptions#claimReconcile()}; what the API
   * server cannot answer for, or a release that fails (a vNPU still in use), is tried again next
   * time.
   */
  private void reconcileClaims() {
    try {
      List<io.vnpu.kube.dra.claims.ClaimRef> refs =
          state.snapshot().preparedClaims().values().stream()
              .filter(c -> c.state() == io.vnpu.kube.dra.checkpoint.ClaimState.PrepareCompleted)
              .map(c -> new io.vnpu.kube.dra.claims.ClaimRef(c.namespace(), c.uid(), c.name()))
              .toList();
      if (refs.isEmpty()) {
        return;
      }
      Map<String, String> gone =
          presence.gone(
              refs,
              p -> log.warn("{}; checked again in {} s", p, options.claimReconcile().toSeconds()));
      for (io.vnpu.kube.dra.claims.ClaimRef ref : refs) {
        String why = gone.get(ref.uid());
        if (why == null) {
          continue;
        }
        log.info(
            "{}: releasing what it holds on this node (the kubelet did not unprepare it)", why);
        String error = state.unprepare(ref);
        if (!error.isEmpty()) {
          log.warn("{}; tried again in {} s", error, options.claimReconcile().toSeconds());
        }
      }
    } catch (io.vnpu.kube.dra.state.StateUnavailableException e) {
      log.warn("releasing claims gone from the API server deferred: {}", e.getMessage());
    } catch (RuntimeException e) {
      log.warn("checking the prepared claims against the API server failed", e);
    }
  }

  /**
   * Counts and times every NodePrepareResources / NodeUnprepareResources claim in {@code metrics}
   * (operations {@code prepare} and {@code unprepare}). Call before {@link #start()}.
   */
  public void measureRequests(io.vnpu.kube.observe.RequestObserver metrics) {
    this.requestMetrics = Objects.requireNonNull(metrics, "metrics");
  }

  private io.vnpu.kube.dra.kubelet.ClaimHandler measured(
      io.vnpu.kube.dra.kubelet.ClaimHandler driver) {
    return requestMetrics == null
        ? driver
        : new io.vnpu.kube.dra.kubelet.MeasuredClaimHandler(
            driver, requestMetrics, System::nanoTime);
  }

  /** The socket layout. */
  public PluginSockets sockets() {
    return sockets;
  }

  /** The NPUs offered now. */
  public NpuInventory inventory() {
    return inventory;
  }

  /** The claim state (after {@link #start()}). */
  public DeviceState state() {
    return state;
  }

  /**
   * The soft shares prepared now, for per-slice metrics: each request's quota region labelled with
   * its claim (namespace and name) and request; a share whose claim is unprepared or gone is not
   * listed, so its series disappear. Empty without soft slicing or before {@link #start()}.
   */
  public io.vnpu.kube.observe.SliceSource sliceSource() {
    return () -> {
      io.vnpu.kube.softslice.SoftSlices slices = softRegions;
      DeviceState s = state;
      if (slices == null || s == null) {
        return List.of();
      }
      Map<String, io.vnpu.kube.dra.checkpoint.PreparedClaim> claims = s.snapshot().preparedClaims();
      return slices.slices(
          dir ->
              io.vnpu.kube.softslice.SoftSliceLayout.ownerOf(dir)
                  .map(claims::get)
                  .flatMap(
                      c ->
                          io.vnpu.kube.softslice.SoftSliceLayout.nameOf(dir)
                              .map(
                                  r ->
                                      new io.vnpu.kube.softslice.SoftSlices.Owner(
                                          c.namespace(), c.name(), r))));
    };
  }

  /**
   * The soft slices of this plugin (after {@link #start()}; null without soft slicing): where the
   * metrics find the registries a region names.
   */
  public io.vnpu.kube.softslice.SoftSlices softSlices() {
    return softRegions;
  }

  /** The last registration status from the kubelet. */
  public Optional<RegistrationStatus> registrationStatus() {
    return server == null ? Optional.empty() : server.registrationStatus();
  }

  /** The liveness port, when enabled. */
  public Optional<Integer> livenessPort() {
    return Optional.ofNullable(liveness).map(LivenessServer::port);
  }

  @Override
  public void close() {
    if (liveness != null) {
      liveness.close();
    }
    if (server != null) {
      server.close();
    }
    if (healthServer != null) {
      healthServer.close();
    }
    synchronized (healthLock) {
      if (healthWatch != null) {
        try {
          healthWatch.close();
        } catch (Exception e) {
          log.debug("closing the health watch: {}", e.toString());
        }
      }
    }
    claimChecks.shutdownNow();
    publisher.close();
    discovery.close();
    if (state != null) {
      state.close(); // nothing is unprepared: the checkpoint keeps every claim for the next one
    }
    if (softRegions != null) {
      try {
        softRegions.close();
      } catch (IOException e) {
        log.warn("closing the compute registries: {}", e.getMessage());
      }
    }
  }
}
