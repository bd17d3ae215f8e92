package io.vnpu.kube.cli.top;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Computes each slice's entitled AI-core share: on one NPU, live slices share its time in proportion
 * to their weights; a slice's hard cap limits its own share (the time it cannot use is not handed
 * on here: that depends on whether the others are busy). Stale slices are entitled to nothing and
 * do not dilute the others.
 */
public final class TargetShares {

  private TargetShares() {}

  /** The slices with {@link SliceStatus#targetSharePct()} filled in, same order. */
  public static List<SliceStatus> apply(List<SliceStatus> slices) {
    Map<Integer, Long> weightPerNpu = new HashMap<>();
    for (SliceStatus s : slices) {
      if (!s.stale()) weightPerNpu.merge(s.logicId(), (long) s.weight(), Long::sum);
    }
    List<SliceStatus> out = new ArrayList<>(slices.size());
    for (SliceStatus s : slices) {
      double pct = 0;
      if (!s.stale()) {
        pct = 100.0 * s.weight() / weightPerNpu.get(s.logicId());
        if (s.capPct() > 0) pct = Math.min(pct, s.capPct());
      }
      out.add(s.withTargetSharePct(pct));
    }
    return out;
  }
}
