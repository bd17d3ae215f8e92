package io.vnpu.kube.dra.checkpoint;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;
import java.util.Objects;

/**
 * A claim this plugin prepared (or started to prepare) on the node.
 *
 * @param uid ResourceClaim {@code metadata.uid}
 * @param namespace ResourceClaim namespace
 * @param name ResourceClaim name
 * @param state how far preparing got
 * @param devices the claim's devices of this driver and pool
 * @param rebuilt true when the entry was reconstructed from a CDI spec file after the checkpoint
 *     was found corrupt: its request names are unknown, so the next NodePrepareResources recomputes
 *     it from the claim instead of replaying it
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PreparedClaim(
    String uid,
    String namespace,
    String name,
    ClaimState state,
    List<PreparedDevice> devices,
    boolean rebuilt) {
  public PreparedClaim {
    Objects.requireNonNull(uid, "uid");
    namespace = namespace == null ? "" : namespace;
    name = name == null ? "" : name;
    Objects.requireNonNull(state, "state");
    devices = devices == null ? List.of() : List.copyOf(devices);
  }

  /** The same claim in another state. */
  public PreparedClaim withState(ClaimState next) {
    return new PreparedClaim(uid, namespace, name, next, devices, rebuilt);
  }

  /** The same claim with other devices. */
  public PreparedClaim withDevices(List<PreparedDevice> next) {
    return new PreparedClaim(uid, namespace, name, state, next, rebuilt);
  }

  /** Whether a repeated prepare may answer from this entry as it is. */
  public boolean replayable() {
    return state == ClaimState.PrepareCompleted && !rebuilt;
  }
}
