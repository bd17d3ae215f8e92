package io.vnpu.kube.metrics;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Collects the data points of one scrape by metric family, then builds the snapshots. Families are
 * declared up front (name, help, type), so a family with no point this scrape is simply left out.
 */
final class Families {
  private record Family(String name, String help, boolean counter, List<Object[]> points) {}

  private final Map<String, Family> families = new LinkedHashMap<>();

  /** Declares a gauge family. */
  Families gauge(String name, String help) {
    families.put(name, new Family(name, help, false, new ArrayList<>()));
    return this;
  }

  /** Declares a counter family; {@code name} is without {@code _total}. */
  Families counter(String name, String help) {
    families.put(name, new Family(name, help, true, new ArrayList<>()));
    return this;
  }

  /** Adds a point; {@code labels} alternate names and values. */
  void add(String name, double value, Labels labels) {
    Family f = families.get(name);
    if (f == null) throw new IllegalStateException("metric family " + name + " not declared");
    f.points.add(new Object[] {labels, value});
  }

  MetricSnapshots build() {
    List<MetricSnapshot> out = new ArrayList<>();
    for (Family f : families.values()) {
      if (f.points.isEmpty()) continue;
      if (f.counter) {
        CounterSnapshot.Builder b = CounterSnapshot.builder().name(f.name).help(f.help);
        for (Object[] p : f.points) {
          b.dataPoint(
              CounterDataPointSnapshot.builder()
                  .labels((Labels) p[0])
                  .value((Double) p[1])
                  .build());
        }
        out.add(b.build());
      } else {
        GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(f.name).help(f.help);
        for (Object[] p : f.points) {
          b.dataPoint(
              GaugeDataPointSnapshot.builder().labels((Labels) p[0]).value((Double) p[1]).build());
        }
        out.add(b.build());
      }
    }
    return new MetricSnapshots(out);
  }
}
