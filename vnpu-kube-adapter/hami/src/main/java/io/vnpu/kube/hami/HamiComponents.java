package io.vnpu.kube.hami;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.vnpu.api.fault.LiveDeviceHealth;
import io.vnpu.api.health.HealthSource;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.kube.hami.alloc.ContainerResponder;
import io.vnpu.kube.hami.bind.HamiAllocator;
import io.vnpu.kube.hami.bind.StaleBindReaper;
import io.vnpu.kube.hami.cleanup.IdleVnpuCleaner;
import io.vnpu.kube.hami.cleanup.VnpuIdleTracker;
import io.vnpu.kube.hami.codec.DevicesToAllocateCodec;
import io.vnpu.kube.hami.codec.HamiNames;
import io.vnpu.kube.hami.codec.RegisterAnnotationCodec;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.hami.devices.DeviceInventory;
import io.vnpu.kube.hami.kube.BoundPodAllocations;
import io.vnpu.kube.hami.kube.NodeRegistrar;
import io.vnpu.kube.hami.kube.PodBindingClient;
import io.vnpu.kube.hami.kube.PodFinder;
import io.vnpu.kube.hami.kube.PodSpecCheck;
import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.limiter.LimiterGate;
import io.vnpu.kube.limiter.LimiterVerifier;
import io.vnpu.kube.softslice.SoftSlices;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HAMi side of one node agent, wired: the {@link HamiResourceManager} for the gRPC device
 * plugin, the health-and-register loop, the idle hard-vNPU cleanup and the pod sweep.
 */
public final class HamiComponents implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HamiComponents.class);

  /** How often finished pods' directories are removed and stale binds ended (also at start-up). */
  public static final Duration SWEEP_PERIOD = Duration.ofSeconds(60);

  private final DeviceInventory inventory;
  private final HamiResourceManager resourceManager;
  private final RegisterLoop registerLoop;
  private final IdleVnpuCleaner idleCleaner;
  private final NodePodSweep podSweep;
  private final PeriodicTask idleTask;
  private final PeriodicTask sweepTask;
  private final Scheduler scheduler;
  private final HealthSource health;
  private final SoftSlices slices;
  private volatile AutoCloseable healthWatch;
  private volatile boolean closed;

  /**
   * @param scheduler runs the periodic tasks; the agent passes one backed by a {@code
   *     ScheduledExecutorService}
   */
  public HamiComponents(
      KubernetesClient client,
      DeviceManager deviceManager,
      HamiChipSettings chip,
      HamiNodeSettings node,
      HamiOptions options,
      Clock clock,
      Scheduler scheduler) {
    this(
        client,
        deviceManager,
        new LiveDeviceHealth(deviceManager),
        chip,
        node,
        options,
        clock,
        scheduler);
  }

  /**
   * @param health the node's health source: the register annotation and ListAndWatch follow it, a
   *     change is republished at once
   */
  public HamiComponents(
      KubernetesClient client,
      DeviceManager deviceManager,
      HealthSource health,
      HamiChipSettings chip,
      HamiNodeSettings node,
      HamiOptions options,
      Clock clock,
      Scheduler scheduler) {
    Objects.requireNonNull(options, "options");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.health = Objects.requireNonNull(health, "health");
    HamiNames names = new HamiNames(chip.commonWord());
    inventory = new DeviceInventory(deviceManager, health, chip, node);
    VnpuIdleTracker tracker = new VnpuIdleTracker();
    slices =
        new SoftSlices(
            options.softLayout().slices(),
            options
                .regions()
                .orElse(
                    (region, config) -> {
                      throw new java.io.IOException(
                          "the limiter creates the quota regions on this node");
                    }),
            limiterGate(options));
    ContainerResponder responder =
        new ContainerResponder(
            names,
            node.hamiVnpuCore(),
            options.hardSplit(),
            deviceManager,
            tracker,
            options.softLayout(),
            slices,
            options.regions().isPresent(),
            clock);
    PodBindingClient binding = new PodBindingClient(client, options.nodeName());
    DevicesToAllocateCodec devicesCodec = new DevicesToAllocateCodec(options.decodeVariant());
    PodSpecCheck spec = new PodSpecCheck(chip.resourceName());
    HamiAllocator allocator =
        new HamiAllocator(
            new PodFinder(client, options.nodeName(), names, devicesCodec, spec),
            binding,
            names,
            devicesCodec,
            inventory::current,
            responder,
            spec);
    resourceManager = new HamiResourceManager(chip, node, inventory, allocator);
    registerLoop =
        new RegisterLoop(
            inventory,
            new NodeRegistrar(
                client,
                options.nodeName(),
                names,
                new RegisterAnnotationCodec(options.emitDevicePairScore()),
                clock,
                options.reportTimeOffset()),
            chip,
            node,
            scheduler,
            options.registerPeriod(),
            options.retryDelay());
    idleCleaner =
        new IdleVnpuCleaner(
            deviceManager,
            inventory::current,
            tracker,
            new BoundPodAllocations(client, options.nodeName(), names, devicesCodec),
            clock,
            options.idleVnpuGrace());
    idleTask =
        new PeriodicTask(
            "idle vNPU cleanup",
            scheduler,
            () -> {
              idleCleaner.runOnce();
              return options.checkIdleVnpuInterval();
            },
            options.checkIdleVnpuInterval());
    podSweep =
        new NodePodSweep(
            client,
            options.nodeName(),
            slices,
            new StaleBindReaper(client, binding, options.nodeName()),
            SWEEP_PERIOD);
    sweepTask = new PeriodicTask("pod sweep", scheduler, podSweep::round, SWEEP_PERIOD);
  }

  private static LimiterGate limiterGate(HamiOptions options) {
    return options
        .limiterGate()
        .orElseGet(
            () ->
                LimiterVerifier.forThisMachine(
                    LimiterFiles.hami(Path.of(options.softLayout().limiterDir()))));
  }

  public HamiResourceManager resourceManager() {
    return resourceManager;
  }

  public DeviceInventory inventory() {
    return inventory;
  }

  public RegisterLoop registerLoop() {
    return registerLoop;
  }

  public IdleVnpuCleaner idleCleaner() {
    return idleCleaner;
  }

  public NodePodSweep podSweep() {
    return podSweep;
  }

  /**
   * The soft slices of the node (directories, regions, compute registrations); swept by every pod
   * sweep, the first one at {@link #start()}.
   */
  public SoftSlices slices() {
    return slices;
  }

  /**
   * Reads the devices once (so the kubelet gets a list at registration), then starts the register
   * loop (first round after 1 s), the idle cleanup (every {@code checkIdleVnpuInterval}) and the
   * pod sweep (now, then every {@link #SWEEP_PERIOD}). Each survives any failure of a round.
   *
   * @throws DeviceException when the first device read fails
   */
  public void start() {
    inventory.refresh();
    healthWatch = health.watch(chips -> scheduler.schedule(this::republish, Duration.ZERO));
    registerLoop.start(Duration.ofSeconds(1));
    idleTask.start(Duration.ZERO);
    sweepTask.start(Duration.ZERO);
  }

  /**
   * A health change republishes ListAndWatch and the register annotation at once (an extra register
   * round on the loop's scheduler), not at the next periodic round.
   */
  private void republish() {
    if (closed) return;
    registerLoop.runOnce();
  }

  @Override
  public void close() {
    closed = true;
    AutoCloseable w = healthWatch;
    if (w != null) {
      try {
        w.close();
      } catch (Exception e) {
        LOG.debug("health watch close: {}", e.toString());
      }
    }
    registerLoop.close();
    idleTask.close();
    sweepTask.close();
    try {
      slices.close();
    } catch (java.io.IOException e) {
      LOG.debug("closing the compute registries: {}", e.toString());
    }
  }
}
