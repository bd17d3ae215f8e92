package io.vnpu.kube.dra.kubelet;

import io.grpc.StatusException;
import io.vnpu.kube.dra.claims.ClaimRef;
import io.vnpu.kube.dra.state.PrepareOutcome;
import io.vnpu.kube.observe.RequestObserver;
import io.vnpu.kube.observe.RequestObserver.ErrorKind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A {@link ClaimHandler} that counts and times every claim of NodePrepareResources (operation
 * {@value #PREPARE}) and NodeUnprepareResources ({@value #UNPREPARE}) in a {@link RequestObserver}:
 * one request per claim, each taking the call's time; a claim answered with an error, or a call
 * failed as a whole, counts as an error of kind {@code request} ({@code limiter} when the error
 * names the limiter check).
 */
public final class MeasuredClaimHandler implements ClaimHandler {
  /** The {@code operation} label of NodePrepareResources. */
  public static final String PREPARE = "prepare";

  /** The {@code operation} label of NodeUnprepareResources. */
  public static final String UNPREPARE = "unprepare";

  private final ClaimHandler delegate;
  private final RequestObserver metrics;
  private final LongSupplier nanoClock;

  public MeasuredClaimHandler(
      ClaimHandler delegate, RequestObserver metrics, LongSupplier nanoClock) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
  }

  @Override
  public Map<String, PrepareOutcome> prepare(List<ClaimRef> claims) throws StatusException {
    long start = nanoClock.getAsLong();
    Map<String, PrepareOutcome> out;
    try {
      out = delegate.prepare(claims);
    } catch (StatusException | RuntimeException e) {
      Duration took = Duration.ofNanos(nanoClock.getAsLong() - start);
      claims.forEach(c -> metrics.failed(PREPARE, took, ErrorKind.REQUEST));
      throw e;
    }
    Duration took = Duration.ofNanos(nanoClock.getAsLong() - start);
    out.values().forEach(o -> record(PREPARE, took, o.error()));
    return out;
  }

  @Override
  public Map<String, String> unprepare(List<ClaimRef> claims) throws StatusException {
    long start = nanoClock.getAsLong();
    Map<String, String> out;
    try {
      out = delegate.unprepare(claims);
    } catch (StatusException | RuntimeException e) {
      Duration took = Duration.ofNanos(nanoClock.getAsLong() - start);
      claims.forEach(c -> metrics.failed(UNPREPARE, took, ErrorKind.REQUEST));
      throw e;
    }
    Duration took = Duration.ofNanos(nanoClock.getAsLong() - start);
    out.values().forEach(error -> record(UNPREPARE, took, error));
    return out;
  }

  private void record(String operation, Duration took, String error) {
    if (error.isEmpty()) {
      metrics.succeeded(operation, took);
    } else {
      metrics.failed(
          operation, took, error.contains("limiter ") ? ErrorKind.LIMITER : ErrorKind.REQUEST);
    }
  }
}
