package io.vnpu.kube.cli.run;

import io.vnpu.api.model.MemorySize;
import io.vnpu.quota.host.SliceRecord;
import io.vnpu.quota.host.process.ExitStatus;
import io.vnpu.quota.model.ComputeCounters;
import io.vnpu.quota.model.DeviceUsage;
import java.util.Locale;

/** The one-line usage summary {@code vnpu run} prints on stderr when the command has ended. */
public final class RunSummary {

  private RunSummary() {}

  /**
   * The summary, e.g. {@code vnpu run: slice train on NPU 0: exit 0 after 12.3 s; peak HBM 3.0 GiB
   * of 8.0 GiB; AI-core share 24.9 % (weight 1)}. The AI-core share is the slice's kernel busy time
   * divided by {@code seconds}, capped at 100 %: it includes time the slice ran alone, so summaries
   * of slices with different lifetimes can add up to more than 100 % (README, "vnpu run").
   *
   * @param seconds wall time of the command
   * @param memory the slice's memory accounting at the end
   * @param compute the slice's compute counters at the end
   */
  public static String line(
      SliceRecord r,
      ExitStatus status,
      double seconds,
      DeviceUsage memory,
      ComputeCounters compute) {
    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            Locale.ROOT,
            "vnpu run: slice %s on NPU %d: %s after %.1f s; peak HBM %s of %s",
            r.name(),
            r.logicId(),
            status.describe(),
            seconds,
            MemorySize.format(memory.peakBytes()),
            r.memoryLimitBytes() == 0 ? "unlimited" : MemorySize.format(r.memoryLimitBytes())));
    if (memory.oomRejections() > 0) {
      s.append(
          String.format(
              Locale.ROOT,
              " (%d allocation%s refused with 207001)",
              memory.oomRejections(),
              memory.oomRejections() == 1 ? "" : "s"));
    }
    String target = r.capPct() > 0 ? "cap " + r.capPct() + " %" : "weight " + r.weight();
    if (compute.launches() == 0) {
      s.append("; AI-core share - (no kernel launches seen; ").append(target).append(')');
    } else {
      double pct = seconds <= 0 ? 0 : Math.min(100, 100.0 * compute.busyNs() / (seconds * 1e9));
      s.append(String.format(Locale.ROOT, "; AI-core share %.1f %% (%s)", pct, target));
    }
    return s.toString();
  }
}
