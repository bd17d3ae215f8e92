package io.vnpu.kube.dra.kubelet;

import io.grpc.StatusException;
import io.grpc.stub.StreamObserver;
import io.vnpu.kube.dra.claims.ClaimRef;
import io.vnpu.kube.dra.state.PrepareOutcome;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * NodePrepareResources and NodeUnprepareResources over a {@link ClaimHandler}, the same for every
 * version of the DRA node service: each version's service ({@link DraServiceV1}, {@link
 * DraServiceV1beta1}) only reads its claim messages and builds its answers. A {@link
 * StatusException} of the handler fails the whole call with that status.
 *
 * @param <C> the version's {@code Claim} message
 */
final class ClaimCalls<C> {

  private final ClaimHandler handler;
  private final Function<C, ClaimRef> ref;

  /**
   * @param ref reads a claim message's namespace, UID and name
   */
  ClaimCalls(ClaimHandler handler, Function<C, ClaimRef> ref) {
    this.handler = Objects.requireNonNull(handler, "handler");
    this.ref = Objects.requireNonNull(ref, "ref");
  }

  /** Prepares {@code claims} and answers with {@code answer} of the outcomes by claim UID. */
  <R> void prepare(
      List<C> claims, Function<Map<String, PrepareOutcome>, R> answer, StreamObserver<R> response) {
    Map<String, PrepareOutcome> outcomes;
    try {
      outcomes = handler.prepare(refs(claims));
    } catch (StatusException e) {
      response.onError(e);
      return;
    }
    response.onNext(answer.apply(outcomes));
    response.onCompleted();
  }

  /** Unprepares {@code claims} and answers with {@code answer} of the errors by claim UID. */
  <R> void unprepare(
      List<C> claims, Function<Map<String, String>, R> answer, StreamObserver<R> response) {
    Map<String, String> errors;
    try {
      errors = handler.unprepare(refs(claims));
    } catch (StatusException e) {
      response.onError(e);
      return;
    }
    response.onNext(answer.apply(errors));
    response.onCompleted();
  }

  private List<ClaimRef> refs(List<C> claims) {
    return claims.stream().map(ref).toList();
  }
}
