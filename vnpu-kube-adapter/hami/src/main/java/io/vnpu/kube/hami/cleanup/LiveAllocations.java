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
   * @param podUids  UIDs of the pods bound to this node that have not ended (phase neither
   *                 Succeeded nor Failed), deleting ones included
   * @param npuUuids UUIDs of the NPUs those pods hold according to their HAMi devices-allocated
   *                 annotation ({@code hami.io/<commonWord>-devices-allocated})
   */
  record Holders(Set<String> podUids, Set<String> npuUuids) {
    public Holders {
      podUids = Set.copyOf(Objects.requireNonNull(podUids, "podUids"));
      npuUuids = Set.copyOf(Objects.requireNonNull(npuUuids, "npuUuids"));
    }
  }
}
