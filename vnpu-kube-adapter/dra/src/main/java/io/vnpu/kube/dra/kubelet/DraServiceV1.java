package io.vnpu.kube.dra.kubelet;

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
import java.util.Map;

/**
 * The DRA node service {@code k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin} (advertised as {@code
 * v1.DRAPlugin}) over a {@link ClaimHandler}: maps proto messages to and from the handler's types
 * ({@link ClaimCalls}) and nothing else. The answers built here serve {@link DraServiceV1beta1} as
 * well, without {@code share_id}.
 */
public final class DraServiceV1 extends DRAPluginGrpc.DRAPluginImplBase {

  private final ClaimCalls<Claim> calls;

  public DraServiceV1(ClaimHandler handler) {
    this.calls =
        new ClaimCalls<>(handler, c -> new ClaimRef(c.getNamespace(), c.getUid(), c.getName()));
  }

  @Override
  public void nodePrepareResources(
      NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> response) {
    calls.prepare(request.getClaimsList(), outcomes -> prepared(outcomes, true), response);
  }

  @Override
  public void nodeUnprepareResources(
      NodeUnprepareResourcesRequest request,
      StreamObserver<NodeUnprepareResourcesResponse> response) {
    calls.unprepare(request.getClaimsList(), DraServiceV1::unprepared, response);
  }

  /**
   * The NodePrepareResources answer for the outcomes by claim UID.
   *
   * @param shareIds whether devices carry {@code share_id} (false: the v1beta1 wire table)
   */
  static NodePrepareResourcesResponse prepared(
      Map<String, PrepareOutcome> outcomes, boolean shareIds) {
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
            if (shareIds && d.shareId() != null) {
              b.setShareId(d.shareId());
            }
            r.addDevices(b);
          }
          out.putClaims(uid, r.build());
        });
    return out.build();
  }

  /** The NodeUnprepareResources answer for the errors by claim UID (empty: unprepared). */
  static NodeUnprepareResourcesResponse unprepared(Map<String, String> errors) {
    NodeUnprepareResourcesResponse.Builder out = NodeUnprepareResourcesResponse.newBuilder();
    errors.forEach(
        (uid, error) ->
            out.putClaims(uid, NodeUnprepareResourceResponse.newBuilder().setError(error).build()));
    return out.build();
  }
}
