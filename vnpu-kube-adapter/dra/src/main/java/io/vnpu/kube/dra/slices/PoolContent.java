package io.vnpu.kube.dra.slices;

import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What one node's ResourceSlice pool offers: the shared counter sets ({@code spec.sharedCounters},
 * KEP-4815 partitionable devices) and the devices. The publisher puts counter sets and devices in
 * different slices of the same pool (the API server refuses a slice with both from 1.35).
 *
 * @param counterSets counter sets, names unique in the pool; empty when no device consumes any
 * @param devices devices, names unique in the pool; every {@code consumesCounters[].counterSet}
 *     names one of {@code counterSets}
 */
public record PoolContent(List<CounterSet> counterSets, List<Device> devices) {

  /**
   * @throws IllegalArgumentException when a name repeats or a device consumes from a counter set
   *     the pool does not have (the scheduler would reject the whole pool)
   */
  public PoolContent {
    counterSets = List.copyOf(counterSets);
    devices = List.copyOf(devices);
    Set<String> sets = new HashSet<>();
    for (CounterSet c : counterSets) {
      if (!sets.add(Objects.requireNonNull(c.getName(), "counter set name"))) {
        throw new IllegalArgumentException("counter set " + c.getName() + " twice in the pool");
      }
    }
    Set<String> names = new HashSet<>();
    for (Device d : devices) {
      if (!names.add(d.getName())) {
        throw new IllegalArgumentException("device " + d.getName() + " twice in the pool");
      }
      if (d.getConsumesCounters() != null) {
        d.getConsumesCounters()
            .forEach(
                c -> {
                  if (!sets.contains(c.getCounterSet())) {
                    throw new IllegalArgumentException(
                        "device "
                            + d.getName()
                            + " consumes from counter"
                            + " set "
                            + c.getCounterSet()
                            + ", which the pool does not have");
                  }
                });
      }
    }
  }

  /** Devices only, no counters. */
  public static PoolContent of(List<Device> devices) {
    return new PoolContent(List.of(), devices);
  }
}
