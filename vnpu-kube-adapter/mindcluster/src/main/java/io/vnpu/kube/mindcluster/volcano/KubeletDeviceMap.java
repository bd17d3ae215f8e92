package io.vnpu.kube.mindcluster.volcano;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Kubelet device ID → the real chip Volcano chose for it (upstream {@code klt2RealDevMap}, spec
 * section 3.8 step 4), per pod. The kubelet believes it allocated its own IDs; ListAndWatch reports
 * the real chip's health under each of them, so a fault on the real chip reaches the pod holding
 * it. Entries of a pod are dropped when the pod is gone. Thread-safe.
 */
public final class KubeletDeviceMap {
  /** One pod's mapping. */
  private record Entry(String podUid, Map<String, String> kubeletToReal) {}

  private final Map<String, Entry> byPodUid = new HashMap<>();

  /**
   * Records a pod's mapping.
   *
   * @param kubeletIds kubelet device IDs, in request order
   * @param realIds    the real device names, same length and order
   */
  public synchronized void put(String podUid, List<String> kubeletIds, List<String> realIds) {
    Objects.requireNonNull(podUid, "podUid");
    if (kubeletIds.size() != realIds.size()) {
      throw new IllegalArgumentException("kubelet IDs " + kubeletIds + " and real IDs " + realIds
          + " differ in length");
    }
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < kubeletIds.size(); i++) m.put(kubeletIds.get(i), realIds.get(i));
    byPodUid.put(podUid, new Entry(podUid, Map.copyOf(m)));
  }

  /** The real device behind a kubelet ID, if it is mapped. */
  public synchronized Optional<String> realOf(String kubeletId) {
    for (Entry e : byPodUid.values()) {
      String r = e.kubeletToReal().get(kubeletId);
      if (r != null) return Optional.of(r);
    }
    return Optional.empty();
  }

  /** Real devices held by pods other than {@code exceptPodUid} (null: all pods). */
  public synchronized Set<String> realInUse(String exceptPodUid) {
    Set<String> out = new HashSet<>();
    for (Entry e : byPodUid.values()) {
      if (!e.podUid().equals(exceptPodUid)) out.addAll(e.kubeletToReal().values());
    }
    return out;
  }

  /** Drops the mappings of pods not in {@code livePodUids}; returns how many were dropped. */
  public synchronized int retainPods(Set<String> livePodUids) {
    int before = byPodUid.size();
    byPodUid.keySet().retainAll(livePodUids);
    return before - byPodUid.size();
  }

  /** Pod UIDs with a mapping. */
  public synchronized Set<String> pods() {
    return Set.copyOf(byPodUid.keySet());
  }
}
