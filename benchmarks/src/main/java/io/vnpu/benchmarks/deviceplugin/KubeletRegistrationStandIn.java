package io.vnpu.benchmarks.deviceplugin;

import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.vnpu.kube.deviceplugin.DevicePluginServer;
import io.vnpu.kube.deviceplugin.v1beta1.Empty;
import io.vnpu.kube.deviceplugin.v1beta1.RegisterRequest;
import io.vnpu.kube.deviceplugin.v1beta1.RegistrationGrpc;
import io.vnpu.kube.kubelet.UnixSocketTransport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A kubelet Registration service on {@code <dir>/kubelet.sock} for measuring a running node agent
 * (benchmarks/measure-agent-rss.sh) and for the README's {@code vnpu plugin} quick start: accepts
 * every Register call and prints {@code registered <resource> <endpoint>} per call, until killed.
 *
 * <p>Usage: {@code java -cp benchmarks.jar
 * io.vnpu.benchmarks.deviceplugin.KubeletRegistrationStandIn DIR}
 */
public final class KubeletRegistrationStandIn {
  private KubeletRegistrationStandIn() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    if (args.length != 1) {
      System.err.println("usage: KubeletRegistrationStandIn PLUGIN_DIR");
      System.exit(2);
    }
    // as DraStandIn: no SLF4J backend here (do not warn about it), and no netty SO_KEEPALIVE
    // notice per connection (unix sockets cannot set it); kept referenced so the level holds
    System.setProperty("slf4j.internal.verbosity", "ERROR");
    java.util.logging.Logger nettyBootstrap =
        java.util.logging.Logger.getLogger("io.netty.bootstrap");
    nettyBootstrap.setLevel(java.util.logging.Level.SEVERE);
    Path socket = Path.of(args[0]).resolve(DevicePluginServer.KUBELET_SOCKET);
    UnixSocketTransport transport = new UnixSocketTransport(1);
    Server server =
        transport.startServer(
            socket,
            List.of(
                new RegistrationGrpc.RegistrationImplBase() {
                  @Override
                  public void register(RegisterRequest req, StreamObserver<Empty> out) {
                    System.out.println(
                        "registered " + req.getResourceName() + " " + req.getEndpoint());
                    System.out.flush();
                    out.onNext(Empty.getDefaultInstance());
                    out.onCompleted();
                  }
                }));
    System.out.println("serving " + socket);
    System.out.flush();
    server.awaitTermination();
    java.lang.ref.Reference.reachabilityFence(nettyBootstrap);
  }
}
