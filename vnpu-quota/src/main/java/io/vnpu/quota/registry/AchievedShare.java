package io.vnpu.quota.registry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Share of an NPU's AI-core time a container achieved between two registry snapshots: the growth of
 * its estimated device time ({@link RegistryEntry#busyNs()}) over the wall time between them.
 *
 * @param key container key
 * @param name display name
 * @param share fraction of the device, 0..1 (may exceed 1 slightly: device time is an estimate)
 * @param launches launches in the interval
 */
public record AchievedShare(long key, String name, double share, long launches) {

  /**
   * Shares of the containers present in both snapshots.
   *
   * @param before earlier snapshot ({@link ComputeRegistry#entries()})
   * @param after later snapshot
   * @param elapsedNs wall time between the two snapshots in ns, > 0
   * @throws IllegalArgumentException if elapsedNs is not positive
   */
  public static List<AchievedShare> between(
      List<RegistryEntry> before, List<RegistryEntry> after, long elapsedNs) {
    if (elapsedNs <= 0) throw new IllegalArgumentException("elapsedNs must be > 0: " + elapsedNs);
    Map<Long, RegistryEntry> old = new HashMap<>();
    for (RegistryEntry e : before) old.put(e.key(), e);
    List<AchievedShare> out = new ArrayList<>();
    for (RegistryEntry e : after) {
      RegistryEntry o = old.get(e.key());
      if (o == null || o.index() != e.index()) continue; // re-registered in between: no common base
      long busy = Math.max(0, e.busyNs() - o.busyNs());
      out.add(
          new AchievedShare(
              e.key(),
              e.name(),
              (double) busy / elapsedNs,
              Math.max(0, e.launches() - o.launches())));
    }
    return out;
  }
}
