package io.vnpu.kube.testing;

import io.grpc.ManagedChannel;
import io.vnpu.kube.dra.proto.registration.InfoRequest;
import io.vnpu.kube.dra.proto.registration.PluginInfo;
import io.vnpu.kube.dra.proto.registration.RegistrationGrpc;
import io.vnpu.kube.dra.proto.registration.RegistrationStatus;
import io.vnpu.kube.dra.proto.v1.Claim;
import io.vnpu.kube.dra.proto.v1.DRAPluginGrpc;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourcesRequest;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourcesResponse;
import io.vnpu.kube.dra.proto.v1.NodeUnprepareResourcesRequest;
import io.vnpu.kube.dra.proto.v1.NodeUnprepareResourcesResponse;
import io.vnpu.kube.kubelet.UnixSocketTransport;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * What the kubelet does to a DRA driver, over the real unix sockets: the plugin watcher's
 * registration calls, and NodePrepareResources / NodeUnprepareResources in both the v1 and the
 * v1beta1 API. Every call has a deadline (the kubelet uses 45 s; 20 s here).
 *
 * <p>It also keeps registrations as the kubelet's DRA plugin manager does (1.33 and later,
 * pkg/kubelet/cm/dra/plugin): {@link #register} validates GetInfo, refuses a second registration of
 * the same endpoint for the driver, connects eagerly and answers NotifyRegistrationStatus; {@link
 * #prepare} and {@link #unprepare} call one instance per call, the most recently registered one
 * that is connected, else the most recent one; an instance whose registration socket is gone is
 * deregistered before the next call (the plugin watcher's inotify event), so the calls switch to
 * the one left.
 */
public final class DraKubeletStandIn implements AutoCloseable {
  private static final long DEADLINE_S = 20;
  private final UnixSocketTransport transport = new UnixSocketTransport(1);

  /** A registered instance: where its registration socket is, the endpoint, its channel. */
  private record Registered(Path registrationSocket, Path endpoint, ManagedChannel channel) {}

  private final java.util.List<Registered> registered = new java.util.ArrayList<>(); // by time
  private final java.util.List<Path> called = new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * Registers the instance behind {@code registrationSocket} as the plugin watcher and the DRA
   * plugin manager do.
   *
   * @return the endpoint (DRA socket) it announced
   * @throws IllegalStateException with the kubelet's message when the registration is refused
   *     (wrong type, no supported service, endpoint already registered)
   */
  public synchronized Path register(Path registrationSocket, String driverName) {
    PluginInfo info = getInfo(registrationSocket);
    String refused = null;
    if (!"DRAPlugin".equals(info.getType()) || !driverName.equals(info.getName())) {
      refused =
          "plugin "
              + info.getName()
              + " of type "
              + info.getType()
              + " is not DRA driver "
              + driverName;
    } else if (info.getSupportedVersionsList().stream()
        .noneMatch(v -> v.equals("v1.DRAPlugin") || v.equals("v1beta1.DRAPlugin"))) {
      refused =
          "none of services supported by the plugin "
              + info.getSupportedVersionsList()
              + " are supported";
    } else if (registered.stream()
        .anyMatch(r -> r.endpoint().toString().equals(info.getEndpoint()))) {
      refused =
          "endpoint "
              + info.getEndpoint()
              + " already registered for DRA driver plugin "
              + driverName;
    }
    if (refused != null) {
      notifyRegistered(registrationSocket, false, refused);
      throw new IllegalStateException(refused);
    }
    Path endpoint = Path.of(info.getEndpoint());
    ManagedChannel ch = transport.channel(endpoint);
    ch.getState(true); // the kubelet connects eagerly, to see early whether the plugin is there
    registered.add(new Registered(registrationSocket, endpoint, ch));
    notifyRegistered(registrationSocket, true, "");
    return endpoint;
  }

  /**
   * The endpoint the next call goes to: registrations whose socket is gone are dropped first; then
   * the most recently registered instance that is connected, else the most recent one.
   *
   * @throws IllegalStateException "DRA driver X is not registered" when none is left
   */
  public synchronized Path pick() {
    return pickRegistered().endpoint();
  }

  /** Every endpoint a {@link #prepare} or {@link #unprepare} went to, in call order. */
  public java.util.List<Path> called() {
    return java.util.List.copyOf(called);
  }

  private synchronized Registered pickRegistered() {
    for (var it = registered.iterator(); it.hasNext(); ) {
      Registered r = it.next();
      if (!java.nio.file.Files.exists(
          r.registrationSocket(), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        r.channel().shutdownNow(); // deregistered: the connection is closed
        it.remove();
      }
    }
    if (registered.isEmpty()) {
      throw new IllegalStateException("DRA driver is not registered");
    }
    for (int i = registered.size() - 1; i >= 0; i--) {
      Registered r = registered.get(i);
      if (r.channel().getState(true) == io.grpc.ConnectivityState.READY) {
        return r;
      }
    }
    return registered.get(registered.size() - 1);
  }

  /** v1 NodePrepareResources on the instance {@link #pick} chooses. */
  public NodePrepareResourcesResponse prepare(Claim... claims) {
    Registered r = pickRegistered();
    called.add(r.endpoint());
    return DRAPluginGrpc.newBlockingStub(r.channel())
        .withDeadlineAfter(DEADLINE_S, TimeUnit.SECONDS)
        .nodePrepareResources(
            NodePrepareResourcesRequest.newBuilder()
                .addAllClaims(java.util.List.of(claims))
                .build());
  }

  /** v1 NodeUnprepareResources on the instance {@link #pick} chooses. */
  public NodeUnprepareResourcesResponse unprepare(Claim... claims) {
    Registered r = pickRegistered();
    called.add(r.endpoint());
    return DRAPluginGrpc.newBlockingStub(r.channel())
        .withDeadlineAfter(DEADLINE_S, TimeUnit.SECONDS)
        .nodeUnprepareResources(
            NodeUnprepareResourcesRequest.newBuilder()
                .addAllClaims(java.util.List.of(claims))
                .build());
  }

  /** GetInfo on a registration socket. */
  public PluginInfo getInfo(Path registrationSocket) {
    ManagedChannel ch = transport.channel(registrationSocket);
    try {
      return RegistrationGrpc.newBlockingStub(ch)
          .withDeadlineAfter(DEADLINE_S, TimeUnit.SECONDS)
          .getInfo(InfoRequest.getDefaultInstance());
    } finally {
      ch.shutdownNow();
    }
  }

  /** NotifyRegistrationStatus, as the kubelet sends after validating GetInfo. */
  public void notifyRegistered(Path registrationSocket, boolean registered, String error) {
    ManagedChannel ch = transport.channel(registrationSocket);
    try {
      RegistrationGrpc.newBlockingStub(ch)
          .withDeadlineAfter(DEADLINE_S, TimeUnit.SECONDS)
          .notifyRegistrationStatus(
              RegistrationStatus.newBuilder()
                  .setPluginRegistered(registered)
                  .setError(error)
                  .build());
    } finally {
      ch.shutdownNow();
    }
  }

  /** A v1 claim message. */
  public static Claim claim(String namespace, String uid, String name) {
    return Claim.newBuilder().setNamespace(namespace).setUid(uid).setName(name).build();
  }

  /** v1 NodePrepareResources on the endpoint GetInfo announced. */
  public NodePrepareResourcesResponse prepareV1(Path draSocket, Claim... claims) {
    ManagedChannel ch = transport.channel(draSocket);
    try {
      return DRAPluginGrpc.newBlockingStub(ch)
          .withDeadlineAfter(DEADLINE_S, TimeUnit.SECONDS)
          .nodePrepareResources(
              NodePrepareResourcesRequest.newBuilder()
                  .addAllClaims(java.util.List.of(claims))
                  .build());
    } finally {
      ch.shutdownNow();
    }
  }

  /** v1 NodeUnprepareResources. */
  public NodeUnprepareResourcesResponse unprepareV1(Path draSocket, Claim... claims) {
    ManagedChannel ch = transport.channel(draSocket);
    try {
      return DRAPluginGrpc.newBlockingStub(ch)
          .withDeadlineAfter(DEADLINE_S, TimeUnit.SECONDS)
          .nodeUnprepareResources(
              NodeUnprepareResourcesRequest.newBuilder()
                  .addAllClaims(java.util.List.of(claims))
                  .build());
    } finally {
      ch.shutdownNow();
    }
  }

  /** v1beta1 NodePrepareResources (a 1.32/1.33 kubelet). */
  public io.vnpu.kube.dra.proto.v1beta1.NodePrepareResourcesResponse prepareV1beta1(
      Path draSocket, String namespace, String uid, String name) {
    ManagedChannel ch = transport.channel(draSocket);
    try {
      return io.vnpu.kube.dra.proto.v1beta1.DRAPluginGrpc.newBlockingStub(ch)
          .withDeadlineAfter(DEADLINE_S, TimeUnit.SECONDS)
          .nodePrepareResources(
              io.vnpu.kube.dra.proto.v1beta1.NodePrepareResourcesRequest.newBuilder()
                  .addClaims(
                      io.vnpu.kube.dra.proto.v1beta1.Claim.newBuilder()
                          .setNamespace(namespace)
                          .setUid(uid)
                          .setName(name))
                  .build());
    } finally {
      ch.shutdownNow();
    }
  }

  /** v1beta1 NodeUnprepareResources. */
  public io.vnpu.kube.dra.proto.v1beta1.NodeUnprepareResourcesResponse unprepareV1beta1(
      Path draSocket, String namespace, String uid, String name) {
    ManagedChannel ch = transport.channel(draSocket);
    try {
      return io.vnpu.kube.dra.proto.v1beta1.DRAPluginGrpc.newBlockingStub(ch)
          .withDeadlineAfter(DEADLINE_S, TimeUnit.SECONDS)
          .nodeUnprepareResources(
              io.vnpu.kube.dra.proto.v1beta1.NodeUnprepareResourcesRequest.newBuilder()
                  .addClaims(
                      io.vnpu.kube.dra.proto.v1beta1.Claim.newBuilder()
                          .setNamespace(namespace)
                          .setUid(uid)
                          .setName(name))
                  .build());
    } finally {
      ch.shutdownNow();
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      registered.forEach(r -> r.channel().shutdownNow());
      registered.clear();
    }
    transport.close();
  }
}
