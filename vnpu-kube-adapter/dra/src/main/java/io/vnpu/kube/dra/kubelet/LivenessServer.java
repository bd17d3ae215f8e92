package io.vnpu.kube.dra.kubelet;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.vnpu.kube.dra.proto.health.HealthCheckRequest;
import io.vnpu.kube.dra.proto.health.HealthCheckResponse;
import io.vnpu.kube.dra.proto.health.HealthCheckResponse.ServingStatus;
import io.vnpu.kube.dra.proto.health.HealthGrpc;
import io.vnpu.kube.dra.proto.registration.InfoRequest;
import io.vnpu.kube.dra.proto.registration.RegistrationGrpc;
import io.vnpu.kube.dra.proto.v1.DRAPluginGrpc;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourcesRequest;
import io.vnpu.kube.kubelet.UnixSocketTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code grpc.health.v1.Health} on TCP ({@code --healthcheck-port}) for a Kubernetes gRPC liveness
 * probe. Services {@code ""} and {@code liveness} are checked through the real sockets, as the
 * kubelet reaches the plugin: GetInfo on the registration socket and an empty NodePrepareResources
 * on the DRA socket, each with a 5 s deadline; a wedged server answers {@code NOT_SERVING}. Other
 * service names answer {@code SERVICE_UNKNOWN}.
 */
public final class LivenessServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LivenessServer.class);

  private final Server server;
  private final UnixSocketTransport transport = new UnixSocketTransport(1);

  /**
   * Starts the server.
   *
   * @param port 0 for a random free port, else the port
   * @throws IOException when the port cannot be bound
   */
  public LivenessServer(int port, PluginSockets sockets) throws IOException {
    this.server =
        NettyServerBuilder.forAddress(new InetSocketAddress(port))
            .addService(new Health(sockets, transport))
            .build()
            .start();
    log.info("liveness (grpc.health.v1) on TCP port {}", server.getPort());
  }

  /** The bound port. */
  public int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    server.shutdownNow();
    try {
      server.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    transport.close();
  }

  private static final class Health extends HealthGrpc.HealthImplBase {
    private final PluginSockets sockets;
    private final UnixSocketTransport transport;

    Health(PluginSockets sockets, UnixSocketTransport transport) {
      this.sockets = sockets;
      this.transport = transport;
    }

    @Override
    public void check(HealthCheckRequest request, StreamObserver<HealthCheckResponse> response) {
      ServingStatus status;
      if (!request.getService().isEmpty() && !request.getService().equals("liveness")) {
        status = ServingStatus.SERVICE_UNKNOWN;
      } else {
        status = probe() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
      }
      response.onNext(HealthCheckResponse.newBuilder().setStatus(status).build());
      response.onCompleted();
    }

    private boolean probe() {
      ManagedChannel reg = transport.channel(sockets.registrationSocket());
      ManagedChannel dra = transport.channel(sockets.draSocket());
      try {
        RegistrationGrpc.newBlockingStub(reg)
            .withDeadlineAfter(5, TimeUnit.SECONDS)
            .getInfo(InfoRequest.getDefaultInstance());
        DRAPluginGrpc.newBlockingStub(dra)
            .withDeadlineAfter(5, TimeUnit.SECONDS)
            .nodePrepareResources(NodePrepareResourcesRequest.getDefaultInstance());
        return true;
      } catch (StatusRuntimeException e) {
        log.warn("liveness check failed: {}", Status.fromThrowable(e));
        return false;
      } finally {
        reg.shutdownNow();
        dra.shutdownNow();
      }
    }
  }
}
