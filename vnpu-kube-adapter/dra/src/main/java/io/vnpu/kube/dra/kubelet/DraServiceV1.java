package io.vnpu.kube.dra.kubelet;

import io.grpc.StatusException;
import io.grpc.stub.StreamObserver;
import io.vnpu.kube.dra.checkpoint.PreparedDevice;
import io.vnpu.kube.dra.claims.ClaimRef;
import io.vnpu.kube.dra.proto.v1.Claim;
import io.vnpu.kube.dra.proto.v1.DRAPluginGrpc;
import io.vnpu.kube.dra.proto.v1.Device;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourceResponse;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourcesRequest;
import io.vnpu.kube.dra.proto.v1.NodePrepareResourcesResponse;
import io.vnpu.kube.dra.proto.v1.NodeUnprepareResourceResponse;
import io.vnpu.kube.dra.proto.v1.NodeUnprepareResourcesRequest;
import io.vnpu.kube.dra.proto.v1.NodeUnprepareResourcesResponse;
import io.vnpu.kube.dra.state.PrepareOutcome;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The DRA node service {@code k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin} (advertised as {@code
 * v1.DRAPlugin}) over a {@link ClaimHandler}: maps proto messages to and from the handler's types
 * and nothing else.
 */
public final class DraServiceV1 extends DRAPluginGrpc.DRAPluginImplBase {

  private final ClaimHandler handler;

  public DraServiceV1(ClaimHandler handler) {
    this.handler = Objects.requireNonNull(handler, "handler");
  }

  @Override
  public void nodePrepareResources(
      NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> response) {
    Map<String, PrepareOutcome> outcomes;
    try {
      outcomes = handler.prepare(refs(request.getClaimsList()));
    } catch (StatusException e) {
      response.onError(e);
      return;
    }
    NodePrepareResourcesResponse.Builder out = NodePrepareResourcesResponse.newBuilder();
    outcomes.forEach(
        (uid, o) -> {
          NodePrepareResourceResponse.Builder r =
              NodePrepareResourceResponse.newBuilder().setError(o.error());
          for (PreparedDevice d : o.devices()) {
            Device.Builder b =
                Device.newBuilder()
                    .addAllRequestNames(d.requestNames())
                    .setPoolName(d.poolName())
                    .setDeviceName(d.deviceName())
                    .addAllCdiDeviceIds(d.cdiDeviceIds());
            if (d.shareId() != null) {
              b.setShareId(d.shareId());
            }
            r.addDevices(b);
          }
          out.putClaims(uid, r.build());
        });
    response.onNext(out.build());
    response.onCompleted();
  }

  @Override
  public void nodeUnprepareResources(
      NodeUnprepareResourcesRequest request,
      StreamObserver<NodeUnprepareResourcesResponse> response) {
    Map<String, String> errors;
    try {
      errors = handler.unprepare(refs(request.getClaimsList()));
    } catch (StatusException e) {
      response.onError(e);
      return;
    }
    NodeUnprepareResourcesResponse.Builder out = NodeUnprepareResourcesResponse.newBuilder();
    errors.forEach(
        (uid, error) ->
            out.putClaims(uid, NodeUnprepareResourceResponse.newBuilder().setError(error).build()));
    response.onNext(out.build());
    response.onCompleted();
  }

  private static List<ClaimRef> refs(List<Claim> claims) {
    return claims.stream()
        .map(c -> new ClaimRef(c.getNamespace(), c.getUid(), c.getName()))
        .toList();
  }
}
