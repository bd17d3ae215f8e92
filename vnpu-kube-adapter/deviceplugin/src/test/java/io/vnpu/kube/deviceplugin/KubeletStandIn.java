package io.vnpu.kube.deviceplugin;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.vnpu.kube.deviceplugin.v1beta1.Empty;
import io.vnpu.kube.deviceplugin.v1beta1.RegisterRequest;
import io.vnpu.kube.deviceplugin.v1beta1.RegistrationGrpc;
import io.vnpu.kube.kubelet.UnixSocketTransport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A stand-in for the kubelet's device-plugin manager, over real unix sockets: a {@code
 * v1beta1.Registration} server on {@code <dir>/kubelet.sock} that records every RegisterRequest,
 * and {@link PluginClient}s that dial a plugin's endpoint in the same directory like the kubelet
 * does after a registration.
 *
 * <p>Reusable by any test of a device plugin: start it on a temp dir, start the plugin on the same
 * dir, {@link #awaitRegistration} and {@link #connect(RegisterRequest)}.
 */
public final class KubeletStandIn implements AutoCloseable {

  private final Path dir;
  private final UnixSocketTransport transport = new UnixSocketTransport(2);
  private final BlockingQueue<RegisterRequest> pending = new LinkedBlockingQueue<>();
  private final List<RegisterRequest> all = new ArrayList<>();
  private final AtomicInteger failuresLeft = new AtomicInteger();
  private final List<PluginClient> clients = new ArrayList<>();
  private volatile Status failure = Status.UNAVAILABLE;
  private Server registration;

  private KubeletStandIn(Path dir) {
    this.dir = dir.toAbsolutePath();
  }

  /** Serves the Registration service on {@code <pluginDir>/kubelet.sock}. */
  public static KubeletStandIn start(Path pluginDir) throws IOException {
    KubeletStandIn k = new KubeletStandIn(pluginDir);
    Files.createDirectories(k.dir);
    k.serve();
    return k;
  }

  public Path pluginDir() {
    return dir;
  }

  public Path kubeletSocket() {
    return dir.resolve(DevicePluginServer.KUBELET_SOCKET);
  }

  private void serve() throws IOException {
    registration =
        transport.startServer(
            kubeletSocket(),
            List.of(
                new RegistrationGrpc.RegistrationImplBase() {
                  @Override
                  public void register(RegisterRequest request, StreamObserver<Empty> out) {
                    synchronized (all) {
                      all.add(request);
                    }
                    if (failuresLeft.getAndUpdate(n -> n > 0 && n != Integer.MAX_VALUE ? n - 1 : n)
                        > 0) {
                      out.onError(failure.asRuntimeException());
                      return;
                    }
                    pending.add(request);
                    out.onNext(Empty.getDefaultInstance());
                    out.onCompleted();
                  }
                }));
  }

  /**
   * Answers the next {@code n} Register calls with {@code status} (the plugin sees a failed
   * registration); they are still counted by {@link #registrations()}.
   */
  public void failNextRegistrations(int n, Status status) {
    failure = status;
    failuresLeft.set(n);
  }

  /** Answers every further Register call with {@code status}. */
  public void rejectAllRegistrations(Status status) {
    failNextRegistrations(Integer.MAX_VALUE, status);
  }

  /**
   * Waits for the next successful registration.
   *
   * @throws AssertionError when none arrives within {@code timeout}
   */
  public RegisterRequest awaitRegistration(Duration timeout) throws InterruptedException {
    RegisterRequest r = pending.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (r == null) {
      throw new AssertionError(
          "no successful Register call within "
              + timeout
              + " (calls so far: "
              + registrations().size()
              + ")");
    }
    return r;
  }

  /** Every Register call received so far, failed ones included, in arrival order. */
  public List<RegisterRequest> registrations() {
    synchronized (all) {
      return List.copyOf(all);
    }
  }

  /** Successful registrations not yet taken by {@link #awaitRegistration}. */
  public int pendingRegistrations() {
    return pending.size();
  }

  /**
   * Simulates a kubelet restart: stops the Registration server, deletes every file in the directory
   * (the real kubelet wipes it), then serves on a freshly created {@code kubelet.sock}.
   */
  public void restart() throws IOException, InterruptedException {
    stopKubelet();
    serve();
  }

  /** Simulates a kubelet that went away: stops serving and deletes every file in the directory. */
  public void stopKubelet() throws IOException, InterruptedException {
    registration.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** Dials the endpoint named in a registration, as the kubelet does. */
  public PluginClient connect(RegisterRequest registration) {
    return connect(registration.getEndpoint());
  }

  /** Dials {@code <dir>/<endpoint>}; the client is closed with the stand-in. */
  public PluginClient connect(String endpoint) {
    PluginClient c = new PluginClient(transport.channel(dir.resolve(endpoint)));
    synchronized (clients) {
      clients.add(c);
    }
    return c;
  }

  @Override
  public void close() {
    synchronized (clients) {
      clients.forEach(PluginClient::close);
    }
    try {
      registration.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      // close() in try-with-resources must not throw InterruptedException (javac lint "try");
      // keep the interrupt for the caller and still release the transport
      Thread.currentThread().interrupt();
    } finally {
      transport.close();
    }
  }
}
