package io.vnpu.kube.dra.kubelet;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.grpc.stub.StreamObserver;
import io.vnpu.kube.dra.claims.ClaimRef;
import io.vnpu.kube.dra.proto.v1beta1.Claim;
import io.vnpu.kube.dra.proto.v1beta1.DRAPluginGrpc;
import io.vnpu.kube.dra.proto.v1beta1.NodePrepareResourcesRequest;
import io.vnpu.kube.dra.proto.v1beta1.NodePrepareResourcesResponse;
import io.vnpu.kube.dra.proto.v1beta1.NodeUnprepareResourcesRequest;
import io.vnpu.kube.dra.proto.v1beta1.NodeUnprepareResourcesResponse;

/**
 * The DRA node service {@code k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin} (advertised as {@code
 * v1beta1.DRAPlugin}) over a {@link ClaimHandler}: the calls of {@link ClaimCalls} with the answers
 * of {@link DraServiceV1} built without {@code share_id}, carried over on the wire. The v1beta1
 * wire table is v1's without {@code Device.share_id} (same messages, field names, numbers and
 * types; {@code dra_v1beta1.proto}), so v1 bytes without that field are a v1beta1 message
 * (DraWireVersionsTest holds the two tables to it).
 */
public final class DraServiceV1beta1 extends DRAPluginGrpc.DRAPluginImplBase {

  private final ClaimCalls<Claim> calls;

  public DraServiceV1beta1(ClaimHandler handler) {
    this.calls =
        new ClaimCalls<>(handler, c -> new ClaimRef(c.getNamespace(), c.getUid(), c.getName()));
  }

  @Override
  public void nodePrepareResources(
      NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> response) {
    calls.prepare(
        request.getClaimsList(),
        outcomes ->
            asV1beta1(
                DraServiceV1.prepared(outcomes, false), NodePrepareResourcesResponse.parser()),
        response);
  }

  @Override
  public void nodeUnprepareResources(
      NodeUnprepareResourcesRequest request,
      StreamObserver<NodeUnprepareResourcesResponse> response) {
    calls.unprepare(
        request.getClaimsList(),
        errors ->
            asV1beta1(DraServiceV1.unprepared(errors), NodeUnprepareResourcesResponse.parser()),
        response);
  }

  /** The v1beta1 message with the wire bytes of a v1 one. */
  static <M> M asV1beta1(MessageLite v1, Parser<M> parser) {
    try {
      return parser.parseFrom(v1.toByteString());
    } catch (InvalidProtocolBufferException e) {
      // the same wire table: bytes a v1 message wrote always parse
      throw new IllegalStateException("v1 answer is not a v1beta1 message: " + e.getMessage(), e);
    }
  }
}
