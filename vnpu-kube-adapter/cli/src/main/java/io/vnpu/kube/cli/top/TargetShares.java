package io.vnpu.kube.cli.top;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Computes each slice's entitled AI-core share while every live slice of its NPU is busy, which is
 * what the limiter converges to: slices share the NPU's time in proportion to their weights, a hard
 * cap limits a slice's own share, and the time a capped slice cannot use goes to the uncapped ones
 * in proportion to their weights (the limiter hands idle time to busy slices). So a slice at weight
 * 3 beside one capped at 25 % is entitled to 75 %, not to 3/28 of the NPU. Stale slices are
 * entitled to nothing and do not dilute the others.
 */
public final class TargetShares {

  private TargetShares() {}

  /** The slices with {@link SliceStatus#targetSharePct()} filled in, same order. */
  public static List<SliceStatus> apply(List<SliceStatus> slices) {
    Map<Integer, List<SliceStatus>> perNpu = new HashMap<>();
    for (SliceStatus s : slices) {
      if (!s.stale()) perNpu.computeIfAbsent(s.logicId(), k -> new ArrayList<>()).add(s);
    }
    Map<SliceStatus, Double> pct = new IdentityHashMap<>();
    for (List<SliceStatus> npu : perNpu.values()) waterFill(npu, pct);
    List<SliceStatus> out = new ArrayList<>(slices.size());
    for (SliceStatus s : slices) out.add(s.withTargetSharePct(s.stale() ? 0 : pct.get(s)));
    return out;
  }

  /**
   * Fixes the slices whose weighted share of what is left exceeds their cap at the cap, and shares
   * the rest among the others by weight, until no share exceeds a cap.
   */
  private static void waterFill(List<SliceStatus> npu, Map<SliceStatus, Double> pct) {
    List<SliceStatus> open = new ArrayList<>(npu);
    double left = 100.0;
    boolean fixedOne = true;
    while (fixedOne && !open.isEmpty()) {
      fixedOne = false;
      long weights = open.stream().mapToLong(SliceStatus::weight).sum();
      for (SliceStatus s : List.copyOf(open)) {
        double share = weights == 0 ? 0 : left * s.weight() / weights;
        if (s.capPct() > 0 && share >= s.capPct()) {
          pct.put(s, (double) s.capPct());
          left -= s.capPct();
          open.remove(s);
          fixedOne = true;
          break; // what is left and the weights changed: share again
        }
      }
    }
    long weights = open.stream().mapToLong(SliceStatus::weight).sum();
    for (SliceStatus s : open)
      pct.put(s, weights == 0 ? 0 : Math.max(0, left) * s.weight() / weights);
  }
}
