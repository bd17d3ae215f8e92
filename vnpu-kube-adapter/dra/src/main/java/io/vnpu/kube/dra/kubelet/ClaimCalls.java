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
    call(claims, handler::prepare, answer, response);
  }

  /** Unprepares {@code claims} and answers with {@code answer} of the errors by claim UID. */
  <R> void unprepare(
      List<C> claims, Function<Map<String, String>, R> answer, StreamObserver<R> response) {
    call(claims, handler::unprepare, answer, response);
  }

  private <T, R> void call(
      List<C> claims, Call<T> call, Function<T, R> answer, StreamObserver<R> response) {
    T result;
    try {
      result = call.run(claims.stream().map(ref).toList());
    } catch (StatusException e) {
      response.onError(e);
      return;
    }
    response.onNext(answer.apply(result));
    response.onCompleted();
  }

  /** {@link ClaimHandler#prepare} or {@link ClaimHandler#unprepare}. */
  @FunctionalInterface
  private interface Call<T> {
    T run(List<ClaimRef> claims) throws StatusException;
  }
}
