package io.vnpu.kube.mindcluster.volcano;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Kubelet device ID → the real chip Volcano chose for it (upstream {@code klt2RealDevMap}, spec
 * section 3.8 step 4), per pod. The kubelet believes it allocated its own IDs; ListAndWatch reports
 * the real chip's health under each of them, so a fault on the real chip reaches the pod holding
 * it. It is also what a pod this plugin served holds ({@link #heldByOthers}). Entries of a pod are
 * dropped when the pod is gone. Thread-safe.
 */
public final class KubeletDeviceMap {
  /**
   * One pod's mapping, and every real device it holds (a kubelet ID left out of the mapping on a
   * restore still leaves its real device held).
   */
  private record Entry(String podUid, Map<String, String> kubeletToReal, Set<String> holds) {}

  private final Map<String, Entry> byPodUid = new HashMap<>();

  /**
   * Records a pod's mapping.
   *
   * @param kubeletIds kubelet device IDs, in request order
   * @param realIds the real device names, same length and order
   */
  public synchronized void put(String podUid, List<String> kubeletIds, List<String> realIds) {
    Objects.requireNonNull(podUid, "podUid");
    if (kubeletIds.size() != realIds.size()) {
      throw new IllegalArgumentException(
          "kubelet IDs " + kubeletIds + " and real IDs " + realIds + " differ in length");
    }
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < kubeletIds.size(); i++) m.put(kubeletIds.get(i), realIds.get(i));
    byPodUid.put(podUid, new Entry(podUid, Map.copyOf(m), Set.copyOf(realIds)));
  }

  /**
   * Rebuilds the map after a restart from the annotations this plugin wrote on the pods it served
   * ({@value VolcanoKeys#KLT_DEV} = kubelet IDs, {@value VolcanoKeys#ASCEND_REAL} = real devices,
   * comma-joined, the vgroup suffix {@code _<n>} dropped). The lists pair up in order; one real
   * device for several kubelet IDs (a dynamic vNPU and its {@code npu-core} IDs) maps them all to
   * it; k real chips for k·n IDs (whole chips as AI Cores) map n IDs to each chip in turn. Pods
   * already mapped keep their entry. The annotations are the pod owner's to edit, so a kubelet ID
   * two pods name is mapped for neither (reported in the result).
   *
   * @param annotationsByPodUid pod UID → its annotations, of this node's live pods
   * @return what was restored and what was left out, for the log
   */
  public synchronized Restored restore(Map<String, Map<String, String>> annotationsByPodUid) {
    Map<String, Map<String, String>> found = new HashMap<>();
    Map<String, Set<String>> holds = new HashMap<>();
    Map<String, Integer> claims = new HashMap<>();
    List<String> skipped = new java.util.ArrayList<>();
    annotationsByPodUid.forEach(
        (uid, a) -> {
          if (byPodUid.containsKey(uid)) return;
          String klt = a.get(VolcanoKeys.KLT_DEV);
          String real = a.get(VolcanoKeys.ASCEND_REAL);
          if (klt == null || real == null) return;
          List<String> k = VolcanoAllocator.split(klt);
          List<String> r =
              VolcanoAllocator.split(real).stream().map(VolcanoAllocator::stripVgroup).toList();
          Optional<Map<String, String>> m = pair(k, r);
          if (m.isEmpty()) {
            skipped.add(
                "pod "
                    + uid
                    + ": "
                    + k.size()
                    + " kubelet ID(s) and "
                    + r.size()
                    + " real device(s) do not pair");
            return;
          }
          found.put(uid, m.get());
          holds.put(uid, Set.copyOf(r));
          m.get().keySet().forEach(id -> claims.merge(id, 1, Integer::sum));
        });
    for (Entry e : byPodUid.values())
      e.kubeletToReal().keySet().forEach(id -> claims.merge(id, 1, Integer::sum));
    int restored = 0;
    for (Map.Entry<String, Map<String, String>> e : found.entrySet()) {
      Map<String, String> m = new HashMap<>(e.getValue());
      for (String id : e.getValue().keySet()) {
        if (claims.get(id) > 1) {
          m.remove(id);
          skipped.add("pod " + e.getKey() + ": kubelet ID " + id + " is named by another pod too");
        }
      }
      if (m.isEmpty()) continue;
      byPodUid.put(e.getKey(), new Entry(e.getKey(), Map.copyOf(m), holds.get(e.getKey())));
      restored++;
    }
    return new Restored(restored, List.copyOf(skipped));
  }

  /** What {@link #restore} did: pods whose mapping came back, and why others did not. */
  public record Restored(int pods, List<String> skipped) {}

  private static Optional<Map<String, String>> pair(List<String> kubeletIds, List<String> real) {
    if (kubeletIds.isEmpty() || real.isEmpty() || kubeletIds.size() % real.size() != 0)
      return Optional.empty();
    int per = kubeletIds.size() / real.size();
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < kubeletIds.size(); i++) m.put(kubeletIds.get(i), real.get(i / per));
    return m.size() == kubeletIds.size() ? Optional.of(m) : Optional.empty();
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
      if (!e.podUid().equals(exceptPodUid)) out.addAll(e.holds());
    }
    return out;
  }

  /**
   * The one rule for what the other live pods hold when a chip is handed out: real device name
   * (vgroup suffix dropped) → its holder, over {@code live} but {@code exceptPodUid}. A pod this
   * plugin served (or whose mapping it restored) holds what it was handed, whatever its {@value
   * VolcanoKeys#ASCEND_REAL} says now: the pod's owner can rewrite that annotation, and must
   * neither free the chip it holds for another pod nor hold back one Volcano gave another. Any
   * other pod (served before this plugin ran, mapping not restorable) holds what its annotation
   * names.
   *
   * @return in the order of {@code live}, holders named {@code <namespace>/<name>}
   */
  public synchronized Map<String, String> heldByOthers(List<Pod> live, String exceptPodUid) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Pod p : live) {
      String uid = p.getMetadata().getUid();
      if (Objects.equals(uid, exceptPodUid)) continue;
      String who = p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
      Entry e = uid == null ? null : byPodUid.get(uid);
      if (e != null) {
        e.holds().forEach(n -> out.putIfAbsent(n, who));
        continue;
      }
      String real = VolcanoPods.annotations(p).get(VolcanoKeys.ASCEND_REAL);
      if (real == null) continue;
      for (String n : VolcanoAllocator.split(real))
        out.putIfAbsent(VolcanoAllocator.stripVgroup(n), who);
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
