package io.vnpu.kube.dra;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.grpc.Status;
import io.grpc.StatusException;
import io.vnpu.kube.dra.claims.ClaimFetchException;
import io.vnpu.kube.dra.claims.ClaimReader;
import io.vnpu.kube.dra.claims.ClaimRef;
import io.vnpu.kube.dra.kubelet.ClaimHandler;
import io.vnpu.kube.dra.state.DeviceState;
import io.vnpu.kube.dra.state.PrepareOutcome;
import io.vnpu.kube.dra.state.StateUnavailableException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The NPU DRA driver's answers to the kubelet: reads the claims of a NodePrepareResources call from
 * the API server before taking the state lock (a slow API server must not block unprepare), then
 * prepares each through {@link DeviceState}. One result per requested UID, never an extra one.
 *
 * <p>Errors: an empty request is answered at once (the liveness check sends one); a claim that
 * cannot be read, was replaced (other UID) or is not allocated fails the whole call with a status
 * naming it ({@code UNAVAILABLE} when retrying may help, else {@code FAILED_PRECONDITION}), as the
 * Go kubelet-plugin helper does; a claim that cannot be prepared gets its own {@code error} while
 * the others are prepared.
 */
public final class NpuDriver implements ClaimHandler {

  private final ClaimReader fetcher;
  private final DeviceState state;
  private final java.util.Optional<io.vnpu.kube.dra.claims.ClaimStatusWriter> status;
  private final java.util.function.Function<String, java.util.Optional<io.vnpu.api.model.Npu>> npus;

  /**
   * @param fetcher reads the claims (the API server in the plugin: {@code ClaimFetcher})
   */
  public NpuDriver(ClaimReader fetcher, DeviceState state) {
    this(fetcher, state, null, name -> java.util.Optional.empty());
  }

  /**
   * @param status writes {@code status.devices} of each prepared claim (best effort); null: none
   * @param npus the NPU of a device name, for the status
   */
  public NpuDriver(
      ClaimReader fetcher,
      DeviceState state,
      io.vnpu.kube.dra.claims.ClaimStatusWriter status,
      java.util.function.Function<String, java.util.Optional<io.vnpu.api.model.Npu>> npus) {
    this.fetcher = Objects.requireNonNull(fetcher, "fetcher");
    this.state = Objects.requireNonNull(state, "state");
    this.status = java.util.Optional.ofNullable(status);
    this.npus = Objects.requireNonNull(npus, "npus");
  }

  @Override
  public Map<String, PrepareOutcome> prepare(List<ClaimRef> claims) throws StatusException {
    Map<String, PrepareOutcome> out = new LinkedHashMap<>();
    if (claims.isEmpty()) {
      return out;
    }
    List<ResourceClaim> fetched = new ArrayList<>(claims.size());
    for (ClaimRef ref : claims) {
      try {
        fetched.add(fetcher.fetch(ref));
      } catch (ClaimFetchException e) {
        Status s = e.transientFailure() ? Status.UNAVAILABLE : Status.FAILED_PRECONDITION;
        throw s.withDescription(e.getMessage()).asException();
      }
    }
    for (ResourceClaim claim : fetched) {
      try {
        out.put(claim.getMetadata().getUid(), state.prepare(claim));
      } catch (StateUnavailableException e) {
        throw Status.UNAVAILABLE.withDescription(e.getMessage()).asException();
      }
    }
    if (status.isPresent()) {
      // outside the state lock, after every claim is prepared: a slow API server delays the
      // answer but never blocks another prepare or unprepare
      for (ResourceClaim claim : fetched) {
        PrepareOutcome o = out.get(claim.getMetadata().getUid());
        if (o.error().isEmpty() && !o.devices().isEmpty()) {
          status.get().prepared(claim, o.devices(), npus);
        }
      }
    }
    return out;
  }

  @Override
  public Map<String, String> unprepare(List<ClaimRef> claims) throws StatusException {
    Map<String, String> out = new LinkedHashMap<>();
    for (ClaimRef ref : claims) {
      try {
        out.put(ref.uid(), state.unprepare(ref));
      } catch (StateUnavailableException e) {
        throw Status.UNAVAILABLE.withDescription(e.getMessage()).asException();
      }
    }
    return out;
  }
}
