package io.vnpu.kube.dra.kubelet;

import io.grpc.BindableService;
import io.grpc.Server;
import io.vnpu.kube.dra.proto.registration.RegistrationStatus;
import io.vnpu.kube.kubelet.FileIdentity;
import io.vnpu.kube.kubelet.PathWatch;
import io.vnpu.kube.kubelet.UnixSocketTransport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet side of a DRA driver: the DRA node service (v1 and v1beta1) on {@link
 * PluginSockets#draSocket()} and the registration service on {@link
 * PluginSockets#registrationSocket()}, in that order (the kubelet dials the DRA socket as soon as
 * it sees the registration socket).
 *
 * <p>Kubelet restarts: the kubelet re-reads the registration directory when it starts and calls
 * GetInfo again, nothing to do. A socket file removed or replaced by someone else (a kubelet that
 * wipes the directory, an operator) is noticed through a {@link PathWatch} on both directories,
 * with a stat every {@code checkInterval} as fallback, and served again at once; the kubelet sees
 * the new registration socket and registers again. A failed re-serve is logged and retried at the
 * next check. {@link #close()} removes the registration socket first (deregistration), then stops
 * the DRA service: calls under way are finished (up to {@link #DRAIN}; in a rolling update the
 * kubelet already calls the newer instance), new ones refused, and the DRA socket removed. Only
 * files this server bound are removed: the other instance's sockets have other names and inodes.
 */
public final class KubeletPluginServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(KubeletPluginServer.class);

  /** How long {@link #close()} lets NodePrepareResources / NodeUnprepareResources calls finish. */
  public static final Duration DRAIN = Duration.ofSeconds(10);

  private final PluginSockets sockets;
  private final List<BindableService> draServices;
  private final RegistrationService registration;
  private final Duration checkInterval;
  private final UnixSocketTransport transport = new UnixSocketTransport(2);
  private final ScheduledExecutorService supervisor;

  private volatile RegistrationStatus lastStatus;
  private volatile PathWatch watch;
  // owned by the supervisor thread
  private Served dra;
  private Served reg;
  private boolean closed;

  private record Served(Server server, FileIdentity id) {}

  /**
   * @param handler what NodePrepareResources / NodeUnprepareResources do
   * @param driverName the DRA driver name announced in GetInfo
   * @param checkInterval period of the fallback check of both sockets
   */
  public KubeletPluginServer(
      PluginSockets sockets, String driverName, ClaimHandler handler, Duration checkInterval) {
    this(sockets, driverName, handler, checkInterval, java.util.Optional.empty());
  }

  /**
   * @param health the device health service, served on the DRA socket next to the node service and
   *     advertised in GetInfo ({@link ResourceHealthServer#VERSIONS}) when present
   */
  public KubeletPluginServer(
      PluginSockets sockets,
      String driverName,
      ClaimHandler handler,
      Duration checkInterval,
      Optional<ResourceHealthServer> health) {
    this.sockets = Objects.requireNonNull(sockets, "sockets");
    List<BindableService> services =
        new java.util.ArrayList<>(
            List.of(new DraServiceV1(handler), new DraServiceV1beta1(handler)));
    List<String> versions = new java.util.ArrayList<>(RegistrationService.SUPPORTED_VERSIONS);
    health.ifPresent(
        h -> {
          services.addAll(h.services());
          versions.addAll(ResourceHealthServer.VERSIONS);
        });
    this.draServices = List.copyOf(services);
    this.registration =
        new RegistrationService(driverName, sockets.draSocket(), versions, s -> lastStatus = s);
    this.checkInterval = Objects.requireNonNull(checkInterval, "checkInterval");
    ScheduledThreadPoolExecutor exec =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "dra-kubelet-sockets");
              t.setDaemon(true);
              return t;
            });
    exec.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.supervisor = exec;
  }

  /**
   * Serves both sockets and starts watching them.
   *
   * @throws IOException naming the socket that cannot be served
   */
  public void start() throws IOException {
    Files.createDirectories(sockets.registrationSocket().getParent());
    Files.createDirectories(
        sockets.dataDir(),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-x---")));
    try {
      supervisor
          .submit(
              () -> {
                dra = serve(sockets.draSocket(), draServices);
                reg = serve(sockets.registrationSocket(), List.of(registration));
                return null;
              })
          .get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting the DRA plugin sockets", e);
    } catch (java.util.concurrent.ExecutionException e) {
      close();
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    }
    log.info(
        "DRA plugin serving on {} and registering through {}",
        sockets.draSocket(),
        sockets.registrationSocket());
    try {
      watch =
          PathWatch.start(
              "dra-socket-watch",
              List.of(sockets.draSocket(), sockets.registrationSocket()),
              this::scheduleReconcile);
    } catch (IOException e) {
      log.warn(
          "no watch on the socket directories ({}); checking every {} ms",
          e.toString(),
          checkInterval.toMillis());
    }
    supervisor.scheduleWithFixedDelay(
        this::reconcile, checkInterval.toMillis(), checkInterval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The last NotifyRegistrationStatus from the kubelet, empty before the first one. */
  public Optional<RegistrationStatus> registrationStatus() {
    return Optional.ofNullable(lastStatus);
  }

  /** The socket layout. */
  public PluginSockets sockets() {
    return sockets;
  }

  @Override
  public void close() {
    try {
      supervisor
          .submit(
              () -> {
                closed = true;
                reg = stop(reg, sockets.registrationSocket(), Duration.ZERO);
                dra = stop(dra, sockets.draSocket(), DRAIN);
              })
          .get(DRAIN.toSeconds() + 10, TimeUnit.SECONDS);
    } catch (RejectedExecutionException e) {
      return; // already closed
    } catch (Exception e) {
      log.warn("stopping the DRA plugin sockets: {}", e.toString());
    }
    PathWatch w = watch;
    if (w != null) {
      w.close();
    }
    supervisor.shutdownNow();
    transport.close();
  }

  private void scheduleReconcile() {
    try {
      supervisor.execute(this::reconcile);
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  private void reconcile() {
    if (closed) {
      return;
    }
    PathWatch w = watch;
    if (w != null) {
      w.ensureRegistered();
    }
    try {
      if (!intact(dra, sockets.draSocket())) {
        log.info("DRA socket {} vanished or was replaced; serving it again", sockets.draSocket());
        dra = stop(dra, null, Duration.ZERO);
        dra = serve(sockets.draSocket(), draServices);
      }
      if (!intact(reg, sockets.registrationSocket())) {
        log.info(
            "registration socket {} vanished or was replaced; serving it again so the"
                + " kubelet registers the driver again",
            sockets.registrationSocket());
        reg = stop(reg, null, Duration.ZERO);
        reg = serve(sockets.registrationSocket(), List.of(registration));
      }
    } catch (IOException | RuntimeException e) {
      log.warn(
          "re-serving the DRA plugin sockets failed: {}; retrying in {} ms",
          e.toString(),
          checkInterval.toMillis());
    }
  }

  private static boolean intact(Served s, Path socket) {
    return s != null
        && !s.server().isShutdown()
        && FileIdentity.of(socket).filter(id -> id.equals(s.id())).isPresent();
  }

  private Served serve(Path socket, List<BindableService> services) throws IOException {
    Files.createDirectories(socket.getParent());
    Server server;
    try {
      server = transport.startServer(socket, services);
    } catch (IOException e) {
      throw new IOException(socket + ": serving failed: " + e.getMessage(), e);
    }
    return new Served(server, FileIdentity.of(socket).orElse(null));
  }

  /**
   * Stops a server, letting calls under way finish for up to {@code drain}; removes {@code socket}
   * when given (not when someone replaced it).
   */
  private Served stop(Served s, Path socket, Duration drain) {
    if (s != null) {
      try {
        s.server().shutdown();
        if (!s.server().awaitTermination(drain.toMillis(), TimeUnit.MILLISECONDS)) {
          s.server().shutdownNow();
          s.server().awaitTermination(2, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        s.server().shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
    if (socket != null
        && s != null
        && FileIdentity.of(socket).filter(id -> id.equals(s.id())).isPresent()) {
      try {
        Files.deleteIfExists(socket);
      } catch (IOException e) {
        log.warn("removing {} failed: {}", socket, e.toString());
      }
    }
    return null;
  }
}
