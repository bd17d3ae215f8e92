package io.vnpu.kube.hami;

import io.vnpu.kube.hami.devices.FakeDeviceId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * GetPreferredAllocation for HAMi fake IDs: the must-include IDs, then IDs of the NPUs with the
 * fewest IDs chosen so far, so replicas spread over NPUs (ties keep the order of
 * {@code available}). The HAMi scheduler, not the kubelet, decides the real NPU; this only keeps
 * the kubelet's fake-ID accounting even.
 */
public final class SpreadPreferredAllocation {
  private SpreadPreferredAllocation() {}

  public static List<String> choose(List<String> available, List<String> mustInclude, int size) {
    Set<String> chosen = new LinkedHashSet<>();
    Map<String, Integer> perNpu = new HashMap<>();
    for (String id : mustInclude) {
      if (chosen.size() >= size) break;
      if (chosen.add(id)) perNpu.merge(npuOf(id), 1, Integer::sum);
    }
    List<String> rest = new ArrayList<>(available);
    rest.removeAll(chosen);
    while (chosen.size() < size && !rest.isEmpty()) {
      String best = null;
      int bestCount = Integer.MAX_VALUE;
      for (String id : rest) {
        int c = perNpu.getOrDefault(npuOf(id), 0);
        if (c < bestCount) {
          best = id;
          bestCount = c;
        }
      }
      rest.remove(best);
      chosen.add(best);
      perNpu.merge(npuOf(best), 1, Integer::sum);
    }
    return List.copyOf(chosen);
  }

  private static String npuOf(String id) {
    return FakeDeviceId.uuidOf(id).orElse(id);
  }
}
