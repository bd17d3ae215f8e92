package io.vnpu.kube.dra.kubelet;

import io.vnpu.kube.dra.claims.ClaimRef;
import io.vnpu.kube.dra.state.PrepareOutcome;
import java.util.List;
import java.util.Map;

/**
 * What the DRA node service does with a call, independent of the proto version; the v1 and v1beta1
 * services are thin adapters over one handler.
 */
public interface ClaimHandler {

  /**
   * Prepares the claims of one pod.
   *
   * @return one outcome per requested claim UID, none extra
   * @throws io.grpc.StatusException to fail the whole call (claim unreadable, state busy)
   */
  Map<String, PrepareOutcome> prepare(List<ClaimRef> claims) throws io.grpc.StatusException;

  /**
   * Unprepares claims.
   *
   * @return claim UID → error, empty string on success; one entry per requested UID
   * @throws io.grpc.StatusException to fail the whole call
   */
  Map<String, String> unprepare(List<ClaimRef> claims) throws io.grpc.StatusException;
}
