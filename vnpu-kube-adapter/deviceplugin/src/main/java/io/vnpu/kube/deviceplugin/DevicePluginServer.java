package io.vnpu.kube.deviceplugin;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.StatusRuntimeException;
import io.vnpu.kube.deviceplugin.v1beta1.RegisterRequest;
import io.vnpu.kube.deviceplugin.v1beta1.RegistrationGrpc;
import io.vnpu.kube.kubelet.FileIdentity;
import io.vnpu.kube.kubelet.PathWatch;
import io.vnpu.kube.kubelet.UnixSocketTransport;
import io.vnpu.kube.resource.ResourceManager;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embeddable kubelet device plugin (API v1beta1) serving one {@link ResourceManager} on a unix
 * socket in the kubelet's device-plugin directory.
 *
 * <p>Lifecycle (see {@link PluginState}): {@link #start()} serves on {@code
 * <pluginDir>/<socketName>} (a stale file there is deleted first) and registers with {@code
 * <pluginDir>/kubelet.sock} (version {@code v1beta1}, endpoint {@code socketName}, the manager's
 * resource name, {@code get_preferred_allocation_available=true} and the manager's {@code
 * pre_start_required}). A kubelet restart wipes the directory and re-creates {@code kubelet.sock};
 * the server notices through a {@link PathWatch} on the directory (with a periodic stat of both
 * sockets every {@code checkInterval} as fallback; see {@link PathWatch}), serves on a fresh gRPC
 * server and registers again. Bind and Register failures, and a gRPC server that terminates by
 * itself, are retried as the {@link RestartPolicy} allows; then the server gives up in state {@link
 * PluginState#FAILED}. A kubelet that stops reading the ListAndWatch stream without restarting is
 * noticed by failed sends: see {@link Builder#listAndWatchFailures}. {@link #stop()} ends the
 * ListAndWatch streams, stops the gRPC server and removes the socket.
 *
 * <p>All lifecycle work runs on one supervisor thread owned by the instance; there is no global
 * state, so several servers (several resources) can run in one process.
 */
public final class DevicePluginServer implements AutoCloseable {

  /** API version sent in RegisterRequest. */
  public static final String API_VERSION = "v1beta1";

  /** File name of the kubelet's registration socket inside the plugin directory. */
  public static final String KUBELET_SOCKET = "kubelet.sock";

  /** The kubelet's default device-plugin directory. */
  public static final Path DEFAULT_PLUGIN_DIR = Path.of("/var/lib/kubelet/device-plugins");

  private static final Logger log = LoggerFactory.getLogger(DevicePluginServer.class);

  private final ResourceManager manager;
  private final Path pluginDir;
  private final String socketName;
  private final Path socket;
  private final Path kubeletSocket;
  private final Clock clock;
  private final Duration checkInterval;
  private final Duration registerTimeout;
  private final RestartPolicy restartPolicy;
  private final RestartBudget budget;
  private final boolean watchDirectory;
  private final Optional<Set<PosixFilePermission>> socketPermissions;
  private final int reRegisterAfterFailedSends;
  private final int restartAfterFailedSends;
  private final Duration resendAfterFailure;
  private final Duration listAndWatchRefresh;
  private volatile int reRegistrations;
  private final ScheduledExecutorService supervisor;
  private final UnixSocketTransport transport;
  private final CompletableFuture<PluginState> termination = new CompletableFuture<>();
  private final List<Consumer<PluginState>> listeners = new CopyOnWriteArrayList<>();

  private volatile PluginState state = PluginState.NEW;
  private volatile boolean started;
  private volatile Throwable failure;
  private volatile Thread supervisorThread;

  // Owned by the supervisor thread (volatile: tests read the open stream count).
  private volatile Generation current;
  private FileIdentity registeredKubelet;
  private volatile PathWatch watch;

  /**
   * One gRPC server lifetime: a kubelet restart or a failure ends it, the next serve makes a new
   * one.
   */
  private record Generation(Server server, DevicePluginService service, FileIdentity socketId) {}

  private DevicePluginServer(Builder b) {
    this.manager = b.manager;
    this.pluginDir = b.pluginDir;
    this.socketName =
        b.socketName != null ? b.socketName : defaultSocketName(manager.resourceName());
    if (socketName.isEmpty() || socketName.contains("/") || socketName.equals(KUBELET_SOCKET)) {
      throw new IllegalArgumentException(
          "socket name must be a plain file name other than "
              + KUBELET_SOCKET
              + ", got '"
              + socketName
              + "'");
    }
    this.socket = pluginDir.resolve(socketName);
    this.kubeletSocket = pluginDir.resolve(KUBELET_SOCKET);
    this.clock = b.clock;
    this.checkInterval = b.checkInterval;
    this.registerTimeout = b.registerTimeout;
    this.restartPolicy = b.restartPolicy;
    this.budget = new RestartBudget(b.restartPolicy);
    this.watchDirectory = b.watchDirectory;
    this.socketPermissions = b.socketPermissions;
    this.reRegisterAfterFailedSends = b.reRegisterAfterFailedSends;
    this.restartAfterFailedSends = b.restartAfterFailedSends;
    this.resendAfterFailure = b.resendAfterFailure;
    this.listAndWatchRefresh = b.listAndWatchRefresh;
    ScheduledThreadPoolExecutor exec =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "device-plugin-" + socketName);
              t.setDaemon(true);
              supervisorThread = t;
              return t;
            });
    // A restart scheduled before stop() must not run after it.
    exec.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.supervisor = exec;
    this.transport = new UnixSocketTransport(2);
  }

  /**
   * Starts a builder.
   *
   * @param manager the resource this plugin serves
   * @param pluginDir the kubelet's device-plugin directory, normally {@link #DEFAULT_PLUGIN_DIR}
   */
  public static Builder builder(ResourceManager manager, Path pluginDir) {
    return new Builder(manager, pluginDir);
  }

  /** {@code huawei.com/Ascend910B3} → {@code Ascend910B3.sock} (the HAMi plugin's socket name). */
  static String defaultSocketName(String resourceName) {
    return resourceName.substring(resourceName.lastIndexOf('/') + 1) + ".sock";
  }

  /** Absolute path of the plugin's own socket. */
  public Path socketPath() {
    return socket;
  }

  /** Current lifecycle state. */
  public PluginState state() {
    return state;
  }

  /** Why the server gave up, when {@link #state()} is {@link PluginState#FAILED}. */
  public Optional<Throwable> failure() {
    return Optional.ofNullable(failure);
  }

  /** Completes with {@code STOPPED} or {@code FAILED} when the server has ended. */
  public CompletableFuture<PluginState> termination() {
    return termination.copy();
  }

  /**
   * Adds a listener called on the supervisor thread after every state change; it may call {@link
   * #stop()}.
   */
  public void addStateListener(Consumer<PluginState> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Serves and registers, returning once the first attempt is done: {@code REGISTERED}, {@code
   * WAITING_FOR_KUBELET} (no kubelet.sock yet), {@code BACKOFF} (a retry is scheduled) or {@code
   * FAILED}. Later transitions happen in the background.
   *
   * @throws IllegalStateException when called twice
   */
  public PluginState start() {
    synchronized (this) {
      if (started) {
        throw new IllegalStateException("device plugin " + socketName + " already started");
      }
      started = true;
    }
    runOnSupervisor(
        () -> {
          attemptStart();
          if (!state.terminal()) {
            supervisor.scheduleWithFixedDelay(
                this::reconcile,
                checkInterval.toMillis(),
                checkInterval.toMillis(),
                TimeUnit.MILLISECONDS);
          }
        });
    if (!state.terminal()) {
      openWatch();
    }
    return state;
  }

  /**
   * Ends the ListAndWatch streams, stops the gRPC server and removes the socket; idempotent.
   * Returns within about 10 s.
   */
  public void stop() {
    if (!started) {
      synchronized (this) {
        started = true;
      }
      setState(PluginState.STOPPED);
      terminate();
      return;
    }
    try {
      runOnSupervisor(
          () -> {
            if (!state.terminal()) {
              closeGeneration();
              setState(PluginState.STOPPED);
              terminate();
            }
          });
    } catch (RejectedExecutionException e) {
      // Already terminated (FAILED or STOPPED): nothing left to stop.
      log.debug("device plugin {} already terminated", socketName);
    }
  }

  @Override
  public void close() {
    stop();
  }

  private void runOnSupervisor(Runnable task) {
    if (Thread.currentThread() == supervisorThread) {
      // Called from a state listener: waiting for our own thread would deadlock.
      task.run();
      return;
    }
    Future<?> f = supervisor.submit(task);
    long waitMs = registerTimeout.toMillis() + 10_000;
    try {
      f.get(waitMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DevicePluginException(
          "interrupted while waiting for device plugin " + socketName, e);
    } catch (ExecutionException e) {
      throw new DevicePluginException(
          "device plugin " + socketName + " lifecycle task failed", e.getCause());
    } catch (TimeoutException e) {
      throw new DevicePluginException(
          "device plugin " + socketName + " lifecycle task did not finish within " + waitMs + " ms",
          e);
    }
  }

  // ---- supervisor thread ----

  private void attemptStart() {
    if (state.terminal()) {
      return;
    }
    closeGeneration();
    try {
      Files.createDirectories(pluginDir);
      DevicePluginService service = DevicePluginService.open(manager, this::onFailedSends, clock);
      Server server;
      try {
        server = transport.startServer(socket, List.of(service));
      } catch (IOException | RuntimeException e) {
        service.close();
        throw e;
      }
      if (socketPermissions.isPresent()) {
        try {
          Files.setPosixFilePermissions(socket, socketPermissions.get());
        } catch (IOException | RuntimeException e) {
          server.shutdownNow();
          service.close();
          throw e;
        }
      }
      current = new Generation(server, service, FileIdentity.of(socket).orElse(null));
      ensureWatch();
    } catch (IOException | RuntimeException e) {
      fail("serving on " + socket + " failed: " + e, e);
      return;
    }
    log.info("device plugin for {} serving on {}", manager.resourceName(), socket);
    registerIfKubeletPresent();
  }

  private void registerIfKubeletPresent() {
    Optional<FileIdentity> kubelet = FileIdentity.of(kubeletSocket);
    if (kubelet.isEmpty()) {
      registeredKubelet = null;
      if (state != PluginState.WAITING_FOR_KUBELET) {
        // once per wait, not per periodic check: the socket appearing is noticed by the watch
        log.info(
            "no kubelet socket {} yet: {} registers when the kubelet creates it",
            kubeletSocket,
            manager.resourceName());
      }
      setState(PluginState.WAITING_FOR_KUBELET);
      return;
    }
    RegisterRequest request =
        RegisterRequest.newBuilder()
            .setVersion(API_VERSION)
            .setEndpoint(socketName)
            .setResourceName(manager.resourceName())
            .setOptions(DevicePluginService.options(manager))
            .build();
    ManagedChannel channel = transport.channel(kubeletSocket);
    try {
      RegistrationGrpc.newBlockingStub(channel)
          .withDeadlineAfter(registerTimeout.toMillis(), TimeUnit.MILLISECONDS)
          .register(request);
    } catch (StatusRuntimeException e) {
      fail(
          "Register of "
              + manager.resourceName()
              + " with the kubelet at "
              + kubeletSocket
              + " failed: "
              + e.getStatus(),
          e);
      return;
    } finally {
      channel.shutdownNow();
    }
    registeredKubelet = kubelet.get();
    log.info("registered {} (endpoint {}) with the kubelet", manager.resourceName(), socketName);
    setState(PluginState.REGISTERED);
  }

  /**
   * Compares what is on disk with what we served and registered; runs on events and periodically.
   */
  private void reconcile() {
    try {
      if (state != PluginState.REGISTERED && state != PluginState.WAITING_FOR_KUBELET) {
        return;
      }
      ensureWatch();
      Generation g = current;
      if (g.server().isShutdown() || g.server().isTerminated()) {
        fail("the gRPC server on " + socket + " terminated unexpectedly", null);
        return;
      }
      Optional<FileIdentity> own = FileIdentity.of(socket);
      if (own.isEmpty() || !own.get().equals(g.socketId())) {
        log.info(
            "plugin socket {} vanished or was replaced (kubelet restart?); serving again", socket);
        attemptStart();
        return;
      }
      if (state == PluginState.REGISTERED) {
        g.service().resendIfDue(clock.instant(), resendAfterFailure, listAndWatchRefresh);
      }
      Optional<FileIdentity> kubelet = FileIdentity.of(kubeletSocket);
      if (state == PluginState.REGISTERED) {
        if (kubelet.isEmpty()) {
          log.info("{} vanished; waiting for the kubelet", kubeletSocket);
          registeredKubelet = null;
          setState(PluginState.WAITING_FOR_KUBELET);
        } else if (!kubelet.get().equals(registeredKubelet)) {
          log.info(
              "{} was re-created (kubelet restart); serving and registering again", kubeletSocket);
          attemptStart();
        }
      } else if (kubelet.isPresent()) {
        registerIfKubeletPresent();
      }
    } catch (RuntimeException | Error e) {
      // A scheduled task that throws (an Error too) is silently cancelled; keep the periodic check
      // alive.
      log.error("device plugin {}: checking the sockets failed", socketName, e);
    }
  }

  /** Called by the service (any thread) after each failed ListAndWatch send. */
  private void onFailedSends(int consecutive) {
    try {
      supervisor.execute(() -> failedSends(consecutive));
    } catch (RejectedExecutionException e) {
      // terminated: no kubelet to register with any more
    }
  }

  /**
   * The kubelet stopped reading our ListAndWatch stream without restarting (no new kubelet.sock):
   * after {@code reRegisterAfter} failed sends in a row, Register again so that it dials us and
   * watches anew; when {@code restartAfter} are reached, treat it as a failure of this server
   * (restart under the budget), as MindCluster re-registers after 5 and exits after 15.
   */
  private void failedSends(int consecutive) {
    if (state != PluginState.REGISTERED) {
      return;
    }
    if (consecutive >= restartAfterFailedSends) {
      fail(
          consecutive
              + " ListAndWatch sends in a row reached no kubelet stream, re-registering did"
              + " not help",
          null);
    } else if (consecutive % reRegisterAfterFailedSends == 0) {
      log.warn(
          "device plugin {}: {} ListAndWatch sends in a row reached no kubelet stream;"
              + " registering again",
          socketName,
          consecutive);
      reRegistrations++;
      registerIfKubeletPresent();
    }
  }

  /** ListAndWatch streams open on the current gRPC server (0 when none is serving). */
  int openListAndWatchStreams() {
    Generation g = current;
    return g == null ? 0 : g.service().openStreams();
  }

  /** How often the server registered again because ListAndWatch sends failed. */
  public int reRegistrations() {
    return reRegistrations;
  }

  private void fail(String message, Throwable cause) {
    closeGeneration();
    Optional<Duration> delay = budget.onFailure(clock.instant());
    if (delay.isEmpty()) {
      failure =
          new DevicePluginException(
              "device plugin "
                  + socketName
                  + " gave up after "
                  + restartPolicy.maxRestarts()
                  + " restarts within "
                  + restartPolicy.window()
                  + "; last failure: "
                  + message,
              cause);
      log.error("{}", failure.getMessage(), cause);
      setState(PluginState.FAILED);
      terminate();
      return;
    }
    log.warn(
        "device plugin {}: {}; restart {} of {} in {} ms",
        socketName,
        message,
        budget.recentFailures(),
        restartPolicy.maxRestarts(),
        delay.get().toMillis());
    setState(PluginState.BACKOFF);
    if (!state.terminal()) { // a listener may have stopped us
      supervisor.schedule(this::attemptStart, delay.get().toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void closeGeneration() {
    Generation g = current;
    if (g == null) {
      return;
    }
    current = null;
    g.service().close();
    g.server().shutdown();
    try {
      if (!g.server().awaitTermination(2, TimeUnit.SECONDS)) {
        g.server().shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      g.server().shutdownNow();
    }
    try {
      Files.deleteIfExists(socket);
    } catch (IOException e) {
      log.warn("removing plugin socket {} failed: {}", socket, e.toString());
    }
  }

  private void terminate() {
    PluginState end = state;
    PathWatch w = watch;
    if (w != null) {
      w.close();
    }
    supervisor.shutdown();
    transport.close();
    termination.complete(end);
  }

  private void setState(PluginState next) {
    PluginState prev = state;
    state = next;
    if (prev != next) {
      log.debug("device plugin {}: {} -> {}", socketName, prev, next);
      for (Consumer<PluginState> l : listeners) {
        try {
          l.accept(next);
        } catch (RuntimeException e) {
          log.warn("device plugin {}: state listener failed", socketName, e);
        }
      }
    }
  }

  // ---- directory watch ----

  private void openWatch() {
    if (!watchDirectory) {
      return;
    }
    try {
      watch =
          PathWatch.start(
              "device-plugin-watch-" + socketName,
              List.of(socket, kubeletSocket),
              () -> {
                try {
                  supervisor.execute(this::reconcile);
                } catch (RejectedExecutionException e) {
                  // terminated: nothing to reconcile any more
                }
              });
    } catch (IOException e) {
      log.warn(
          "no watch on {} ({}); relying on the periodic check every {} ms",
          pluginDir,
          e.toString(),
          checkInterval.toMillis());
    }
  }

  /** (Re-)registers the directory watch, which dies when the directory is removed. */
  private void ensureWatch() {
    PathWatch w = watch;
    if (w != null) {
      w.ensureRegistered();
    }
  }

  /** Options of a {@link DevicePluginServer}. */
  public static final class Builder {
    private final ResourceManager manager;
    private final Path pluginDir;
    private String socketName;
    private Clock clock = Clock.systemUTC();
    private Duration checkInterval = Duration.ofSeconds(1);
    private Duration registerTimeout = Duration.ofSeconds(5);
    private RestartPolicy restartPolicy = RestartPolicy.DEFAULT;
    private boolean watchDirectory = true;
    private Optional<Set<PosixFilePermission>> socketPermissions = Optional.empty();
    private int reRegisterAfterFailedSends = 5;
    private int restartAfterFailedSends = 15;
    private Duration resendAfterFailure = Duration.ofMinutes(1);
    private Duration listAndWatchRefresh = Duration.ofHours(1);

    private Builder(ResourceManager manager, Path pluginDir) {
      this.manager = Objects.requireNonNull(manager, "manager");
      this.pluginDir = Objects.requireNonNull(pluginDir, "pluginDir").toAbsolutePath();
    }

    /** Socket file name in the plugin directory; default {@code <resource name after '/'>.sock}. */
    public Builder socketName(String name) {
      this.socketName = Objects.requireNonNull(name, "socketName");
      return this;
    }

    /** Clock for the restart budget; default the system UTC clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Period of the fallback stat of both sockets; default 1 s. */
    public Builder checkInterval(Duration interval) {
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("checkInterval must be positive, got " + interval);
      }
      this.checkInterval = interval;
      return this;
    }

    /** Deadline of the Register call; default 5 s (as the upstream plugin's dial timeout). */
    public Builder registerTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("registerTimeout must be positive, got " + timeout);
      }
      this.registerTimeout = timeout;
      return this;
    }

    /** Restart budget for failures; default {@link RestartPolicy#DEFAULT}. */
    public Builder restartPolicy(RestartPolicy policy) {
      this.restartPolicy = Objects.requireNonNull(policy, "restartPolicy");
      return this;
    }

    /**
     * Whether to watch the plugin directory with a {@link PathWatch} (default true); without it
     * only the periodic check notices a kubelet restart.
     */
    public Builder watchDirectory(boolean watch) {
      this.watchDirectory = watch;
      return this;
    }

    /**
     * Mode the plugin socket gets right after it is bound, e.g. {@code rw-------} (0600, as
     * MindCluster's plugin sets it); default: left as the process umask made it.
     *
     * @throws IllegalArgumentException when {@code mode} is not a 9-character {@code rwx} string
     */
    public Builder socketMode(String mode) {
      this.socketPermissions = Optional.of(PosixFilePermissions.fromString(mode));
      return this;
    }

    /**
     * What failed ListAndWatch sends lead to (a send fails when the kubelet had been watching and
     * the update reaches no open stream): every {@code reRegisterAfter} failures in a row the
     * server registers again; at {@code restartAfter} it counts as a failure of the server and
     * restarts under the {@link RestartPolicy}. A failed send is retried every {@code resendAfter}
     * even without a device change. Default 5, 15 and 1 min, as MindCluster's plugin.
     *
     * @throws IllegalArgumentException unless {@code 1 <= reRegisterAfter <= restartAfter} and
     *     {@code resendAfter} is positive
     */
    public Builder listAndWatchFailures(
        int reRegisterAfter, int restartAfter, Duration resendAfter) {
      if (reRegisterAfter < 1 || restartAfter < reRegisterAfter) {
        throw new IllegalArgumentException(
            "need 1 <= reRegisterAfter <= restartAfter, got "
                + reRegisterAfter
                + " and "
                + restartAfter);
      }
      if (resendAfter.isNegative() || resendAfter.isZero()) {
        throw new IllegalArgumentException("resendAfter must be positive, got " + resendAfter);
      }
      this.reRegisterAfterFailedSends = reRegisterAfter;
      this.restartAfterFailedSends = restartAfter;
      this.resendAfterFailure = resendAfter;
      return this;
    }

    /**
     * Longest time without a ListAndWatch send: the full list is sent again after it even without a
     * device change (checked every {@code checkInterval}); default 1 h, as MindCluster's plugin.
     */
    public Builder listAndWatchRefresh(Duration refresh) {
      if (refresh.isNegative() || refresh.isZero()) {
        throw new IllegalArgumentException("listAndWatchRefresh must be positive, got " + refresh);
      }
      this.listAndWatchRefresh = refresh;
      return this;
    }

    public DevicePluginServer build() {
      return new DevicePluginServer(this);
    }
  }
}
