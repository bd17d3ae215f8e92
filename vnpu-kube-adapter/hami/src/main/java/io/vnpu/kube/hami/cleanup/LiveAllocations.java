package io.vnpu.kube.hami.cleanup;

import java.util.Objects;
import java.util.Set;

/**
 * What the live pods bound to this node hold, read afresh for every idle vNPU cleanup scan, so a
 * vNPU that a Running container has not touched yet (a sidecar, a warm standby, a shell that waits)
 * is never taken from it. Implementations: the pods bound to the node through the API server
 * ({@link io.vnpu.kube.hami.kube.BoundPodAllocations}).
 */
public interface LiveAllocations {

  /**
   * The current holders.
   *
   * @throws LiveAllocationsUnavailableException when the source cannot be read now; the cleanup
   *     then destroys nothing
   */
  Holders read() throws LiveAllocationsUnavailableException;

  /**
   * @param podUids UIDs of the pods bound to this node that have not ended (phase neither Succeeded
   *     nor Failed), deleting ones included
   * @param npuUuids UUIDs of the NPUs those pods hold according to their HAMi devices-allocated
   *     annotation ({@code hami.io/<commonWord>-devices-allocated}) where the vNPU templates they
   *     need are unknown (no readable {@code huawei.com/<commonWord>} runtime info): every vNPU of
   *     unknown owner there is kept
   * @param templates NPU UUID → vNPU template → how many container devices of those pods need a
   *     vNPU of that template on that NPU (from the runtime info's {@code temp})
   */
  record Holders(
      Set<String> podUids,
      Set<String> npuUuids,
      java.util.Map<String, java.util.Map<String, Integer>> templates) {
    public Holders {
      podUids = Set.copyOf(Objects.requireNonNull(podUids, "podUids"));
      npuUuids = Set.copyOf(Objects.requireNonNull(npuUuids, "npuUuids"));
      java.util.Map<String, java.util.Map<String, Integer>> copy = new java.util.HashMap<>();
      Objects.requireNonNull(templates, "templates")
          .forEach((k, v) -> copy.put(k, java.util.Map.copyOf(v)));
      templates = java.util.Map.copyOf(copy);
    }

    /** Holders whose templates are unknown. */
    public Holders(Set<String> podUids, Set<String> npuUuids) {
      this(podUids, npuUuids, java.util.Map.of());
    }
  }
}
