package io.vnpu.kube.testing;

import io.grpc.ManagedChannel;
import io.vnpu.kube.kubelet.UnixSocketTransport;
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
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * What the kubelet does to a DRA driver, over the real unix sockets: the plugin watcher's
 * registration calls, and NodePrepareResources / NodeUnprepareResources in both the v1 and the
 * v1beta1 API. Every call has a deadline (the kubelet uses 45 s; 20 s here).
 */
public final class DraKubeletStandIn implements AutoCloseable {
  private static final long DEADLINE_S = 20;
  private final UnixSocketTransport transport = new UnixSocketTransport(1);

  /** GetInfo on a registration socket. */
  public PluginInfo getInfo(Path registrationSocket) {
    ManagedChannel ch = transport.channel(registrationSocket);
    try {
      return RegistrationGrpc.newBlockingStub(ch).withDeadlineAfter(DEADLINE_S, TimeUnit.SECONDS)
          .getInfo(InfoRequest.getDefaultInstance());
    } finally {
      ch.shutdownNow();
    }
  }

  /** NotifyRegistrationStatus, as the kubelet sends after validating GetInfo. */
  public void notifyRegistered(Path registrationSocket, boolean registered, String error) {
    ManagedChannel ch = transport.channel(registrationSocket);
    try {
      RegistrationGrpc.newBlockingStub(ch).withDeadlineAfter(DEADLINE_S, TimeUnit.SECONDS)
          .notifyRegistrationStatus(RegistrationStatus.newBuilder()
              .setPluginRegistered(registered).setError(error).build());
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
      return DRAPluginGrpc.newBlockingStub(ch).withDeadlineAfter(DEADLINE_S, TimeUnit.SECONDS)
          .nodePrepareResources(NodePrepareResourcesRequest.newBuilder()
              .addAllClaims(java.util.List.of(claims)).build());
    } finally {
      ch.shutdownNow();
    }
  }

  /** v1 NodeUnprepareResources. */
  public NodeUnprepareResourcesResponse unprepareV1(Path draSocket, Claim... claims) {
    ManagedChannel ch = transport.channel(draSocket);
    try {
      return DRAPluginGrpc.newBlockingStub(ch).withDeadlineAfter(DEADLINE_S, TimeUnit.SECONDS)
          .nodeUnprepareResources(NodeUnprepareResourcesRequest.newBuilder()
              .addAllClaims(java.util.List.of(claims)).build());
    } finally {
      ch.shutdownNow();
    }
  }

  /** v1beta1 NodePrepareResources (a 1.32/1.33 kubelet). */
  public io.vnpu.kube.dra.proto.v1beta1.NodePrepareResourcesResponse prepareV1beta1(Path draSocket,
      String namespace, String uid, String name) {
    ManagedChannel ch = transport.channel(draSocket);
    try {
      return io.vnpu.kube.dra.proto.v1beta1.DRAPluginGrpc.newBlockingStub(ch)
          .withDeadlineAfter(DEADLINE_S, TimeUnit.SECONDS)
          .nodePrepareResources(io.vnpu.kube.dra.proto.v1beta1.NodePrepareResourcesRequest
              .newBuilder().addClaims(io.vnpu.kube.dra.proto.v1beta1.Claim.newBuilder()
                  .setNamespace(namespace).setUid(uid).setName(name)).build());
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
          .nodeUnprepareResources(io.vnpu.kube.dra.proto.v1beta1.NodeUnprepareResourcesRequest
              .newBuilder().addClaims(io.vnpu.kube.dra.proto.v1beta1.Claim.newBuilder()
                  .setNamespace(namespace).setUid(uid).setName(name)).build());
    } finally {
      ch.shutdownNow();
    }
  }

  @Override
  public void close() {
    transport.close();
  }
}
