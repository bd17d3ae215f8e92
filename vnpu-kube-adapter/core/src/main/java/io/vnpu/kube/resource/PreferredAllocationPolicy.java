package io.vnpu.kube.resource;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * GetPreferredAllocation for devices that are replicas (fake IDs) of physical NPUs, optionally
 * connected in HCCS groups. Pure and thread-safe: the answer depends only on the arguments.
 *
 * <p>The caller describes the topology with two functions over device IDs: {@code physicalDevice}
 * maps a device ID to a key of its physical NPU (for HAMi fake IDs {@code <UUID>-<i>}, the UUID),
 * and {@code hccsGroup} maps it to a key of its HCCS group (on 910 nodes with 8 chips, phy IDs 0-3
 * and 4-7 form the two groups, see {@link #hccsGroupOfFour(int)}; nodes without HCCS use {@link
 * #spreadOnly(Function)}, i.e. one group). Keys are compared with {@code equals}.
 *
 * <p>Contract of {@link #choose(List, List, int)}:
 *
 * <ol>
 *   <li>The answer has exactly {@code size} distinct IDs, all from {@code available}; it starts
 *       with every {@code mustInclude} ID in the given order, followed by the picked IDs in pick
 *       order.
 *   <li><b>Spread:</b> every pick comes from a physical NPU with the fewest IDs in the answer so
 *       far among the NPUs that still have an available replica, so a second replica of an NPU is
 *       picked only when every available NPU already has one in the answer.
 *   <li><b>HCCS:</b> new physical NPUs are taken from the groups the {@code mustInclude} IDs are in
 *       first; the rest comes from one group when one can hold it — the group with the fewest
 *       unused NPUs that still holds it (best fit, keeping bigger groups whole for bigger jobs) —
 *       otherwise whole groups are filled from the one with the most unused NPUs downwards.
 *   <li>Among NPUs equal so far, the one with the most available replicas (the least loaded) wins;
 *       remaining ties go to the earlier position in {@code available}, as do ties between groups.
 * </ol>
 */
public final class PreferredAllocationPolicy {

  private final Function<String, ?> physicalDevice;
  private final Function<String, ?> hccsGroup;

  /**
   * @param physicalDevice device ID → key of its physical NPU; must not return null
   * @param hccsGroup device ID → key of its HCCS group; must not return null
   */
  public PreferredAllocationPolicy(
      Function<String, ?> physicalDevice, Function<String, ?> hccsGroup) {
    this.physicalDevice = Objects.requireNonNull(physicalDevice, "physicalDevice");
    this.hccsGroup = Objects.requireNonNull(hccsGroup, "hccsGroup");
  }

  /** A policy that spreads replicas across NPUs and knows no HCCS groups (e.g. 310P). */
  public static PreferredAllocationPolicy spreadOnly(Function<String, ?> physicalDevice) {
    return new PreferredAllocationPolicy(physicalDevice, id -> "all");
  }

  /**
   * HCCS group of a 910 chip on an 8-chip node: phy IDs 0-3 are group 0, 4-7 group 1.
   *
   * @throws IllegalArgumentException for a negative phy ID
   */
  public static int hccsGroupOfFour(int phyId) {
    if (phyId < 0) {
      throw new IllegalArgumentException("phy ID must be >= 0, got " + phyId);
    }
    return phyId / 4;
  }

  /** Per physical NPU bookkeeping while picking. */
  private static final class Npu {
    final Object group;
    final int firstIndex;
    int used;
    final List<String> free = new ArrayList<>();

    Npu(Object group, int firstIndex) {
      this.group = group;
      this.firstIndex = firstIndex;
    }
  }

  /**
   * Chooses the preferred devices for one container.
   *
   * @param available IDs the kubelet may hand out, in the kubelet's order
   * @param mustInclude IDs that must be part of the answer (a subset of {@code available})
   * @param size number of IDs wanted (the container's request)
   * @return exactly {@code size} IDs, see the class contract
   * @throws IllegalArgumentException when {@code size} is negative, below the number of
   *     must-include IDs or above the number of available IDs, when a must-include ID is not
   *     available, or when a topology function returns null for an ID
   */
  public List<String> choose(List<String> available, List<String> mustInclude, int size) {
    List<String> avail = List.copyOf(new LinkedHashSet<>(available));
    Set<String> must = new LinkedHashSet<>(mustInclude);
    if (size < 0 || size > avail.size()) {
      throw new IllegalArgumentException(
          "allocation size "
              + size
              + " is not between 0 and the "
              + avail.size()
              + " available device IDs");
    }
    if (must.size() > size) {
      throw new IllegalArgumentException(
          "allocation size "
              + size
              + " is below the "
              + must.size()
              + " must-include device IDs "
              + must);
    }
    Set<String> availSet = new LinkedHashSet<>(avail);
    for (String id : must) {
      if (!availSet.contains(id)) {
        throw new IllegalArgumentException(
            "must-include device ID " + id + " is not among the available IDs");
      }
    }

    Map<Object, Npu> npus = new LinkedHashMap<>();
    Map<String, Npu> npuOf = new HashMap<>();
    for (int i = 0; i < avail.size(); i++) {
      String id = avail.get(i);
      Object phys = key(physicalDevice, "physical device", id);
      Object group = key(hccsGroup, "HCCS group", id);
      final int index = i;
      Npu npu = npus.computeIfAbsent(phys, p -> new Npu(group, index));
      npuOf.put(id, npu);
      if (must.contains(id)) {
        npu.used++;
      } else {
        npu.free.add(id);
      }
    }

    List<String> answer = new ArrayList<>(must);
    Map<Object, Integer> rank = groupRanks(must, npuOf, npus.values(), size - answer.size());
    Comparator<Npu> order =
        Comparator.<Npu>comparingInt(n -> n.used)
            .thenComparingInt(n -> rank.get(n.group))
            .thenComparingInt(n -> -n.free.size())
            .thenComparingInt(n -> n.firstIndex);
    while (answer.size() < size) {
      Npu best = npus.values().stream().filter(n -> !n.free.isEmpty()).min(order).orElseThrow();
      answer.add(best.free.remove(0));
      best.used++;
    }
    return List.copyOf(answer);
  }

  /**
   * Ranks groups: those of the must-include IDs first (in must-include order), then the groups new
   * NPUs should come from (best fit, else largest first), then the rest by first appearance.
   */
  private static Map<Object, Integer> groupRanks(
      Set<String> must, Map<String, Npu> npuOf, Iterable<Npu> npus, int picks) {
    Map<Object, Integer> freshByGroup = new LinkedHashMap<>();
    int freshTotal = 0;
    for (Npu n : npus) {
      freshByGroup.merge(n.group, n.used == 0 && !n.free.isEmpty() ? 1 : 0, Integer::sum);
      if (n.used == 0 && !n.free.isEmpty()) {
        freshTotal++;
      }
    }
    List<Object> ordered = new ArrayList<>();
    int need = Math.min(picks, freshTotal);
    for (String id : must) {
      Object g = npuOf.get(id).group;
      if (!ordered.contains(g)) {
        ordered.add(g);
        need -= freshByGroup.get(g);
      }
    }
    List<Object> rest = new ArrayList<>(freshByGroup.keySet());
    rest.removeAll(ordered);
    while (need > 0 && !rest.isEmpty()) {
      final int n = need;
      Comparator<Object> earlier = Comparator.comparingInt(rest::indexOf);
      Object fit =
          rest.stream()
              .filter(g -> freshByGroup.get(g) >= n)
              .min(Comparator.comparingInt(freshByGroup::get).thenComparing(earlier))
              .orElse(null);
      if (fit == null) {
        fit =
            rest.stream()
                .min(
                    Comparator.<Object>comparingInt(g -> -freshByGroup.get(g))
                        .thenComparing(earlier))
                .orElseThrow();
      }
      ordered.add(fit);
      rest.remove(fit);
      need -= freshByGroup.get(fit);
    }
    ordered.addAll(rest);
    Map<Object, Integer> rank = new HashMap<>();
    for (int i = 0; i < ordered.size(); i++) {
      rank.put(ordered.get(i), i);
    }
    return rank;
  }

  private static Object key(Function<String, ?> f, String what, String id) {
    Object k = f.apply(id);
    if (k == null) {
      throw new IllegalArgumentException("no " + what + " known for device ID " + id);
    }
    return k;
  }
}
