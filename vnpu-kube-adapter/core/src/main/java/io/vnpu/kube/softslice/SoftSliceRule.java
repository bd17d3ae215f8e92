package io.vnpu.kube.softslice;

import io.vnpu.api.model.Priority;
import io.vnpu.api.model.Units;
import io.vnpu.api.slice.SliceShare.SoftQuota;
import java.util.Locale;

/**
 * The one rule for what a Kubernetes soft slice may get: its memory quota, AI-core ceiling, compute
 * weight and launch priority never exceed what the scheduler charged for it ({@link SoftCharge});
 * the slice's own settings ({@link SoftAsk}: opaque configuration, annotations a tenant can edit)
 * may lower them or pick a policy within the charge, never raise them. HAMi, MindCluster and DRA
 * all grant their soft slices here; {@code vnpu run} (no scheduler, unlimited allowed) does not.
 *
 * <p>Per device, with {@code c} the charged AI-core percent:
 * <ul>
 *   <li>memory: the charge, or less (1 byte .. the charge);
 *   <li>weight: {@code c} by default, or 1..{@code c} (the weight is the share of a busy chip among
 *       its slices; a larger weight takes AI-core time its neighbours were charged for);
 *   <li>ceiling: {@code c} by default, or 1..{@code c}; none (0) only when {@code c} is 100, the
 *       whole chip's AI Core;
 *   <li>memory only (no compute limiting): only when {@code c} is 100, or 0 (the scheduler accounts
 *       no AI Core for the slice, HAMi's upstream meaning of a missing core request: weight and
 *       ceiling are then 0 and cannot be asked for);
 *   <li>priority: at most the charge's ({@code HIGH} only where an administrator granted it).
 * </ul>
 * Thread-safe and pure.
 */
public final class SoftSliceRule {
  private SoftSliceRule() {}

  /**
   * The quota one device of the slice gets.
   *
   * @throws SoftSliceRefusedException naming the asked field, its value and the charge it exceeds
   */
  public static SoftQuota grant(SoftCharge charge, SoftAsk ask) throws SoftSliceRefusedException {
    long memory = charge.memoryBytes();
    if (ask.memory().isPresent()) {
      long v = ask.memory().get().value();
      if (v <= 0 || v > charge.memoryBytes()) {
        throw refused(ask, ask.memory().get().field(), mib(v) + " MiB", v <= 0
            ? "a Kubernetes soft slice must be > 0 MiB (0 would be an unlimited region)"
            : "more than the " + mib(charge.memoryBytes()) + " MiB " + charged(charge));
      }
      memory = v;
    }
    int c = charge.corePct();
    boolean unenforcedAllowed = c == 0 || c == 100;
    if (ask.memoryOnly().isPresent() && ask.memoryOnly().get().value()) {
      if (!unenforcedAllowed) {
        throw refused(ask, ask.memoryOnly().get().field(), "true", "no compute limit on a slice charged " + c
            + " % AI Core (" + charged(charge) + ") would take AI-core time its neighbours were charged for");
      }
      return new SoftQuota(memory, 0, 0, priority(charge, ask));
    }
    int weight = c;
    if (ask.weight().isPresent()) {
      int w = ask.weight().get().value();
      if (w < 1 || w > c) {
        throw refused(ask, ask.weight().get().field(), Integer.toString(w), w < 1
            ? "a weight must be at least 1" : "more than the " + c + " % AI Core " + charged(charge));
      }
      weight = w;
    }
    int cap = c;
    if (ask.cap().isPresent()) {
      int k = ask.cap().get().value();
      if (k == 0 && c != 100) {
        throw refused(ask, ask.cap().get().field(), "0", "no ceiling on a slice charged " + c + " % AI Core ("
            + charged(charge) + ")");
      }
      if (k < 0 || k > c) {
        throw refused(ask, ask.cap().get().field(), Integer.toString(k), "more than the " + c + " % AI Core "
            + charged(charge));
      }
      cap = k;
    }
    return new SoftQuota(memory, weight, cap, priority(charge, ask));
  }

  private static Priority priority(SoftCharge charge, SoftAsk ask) throws SoftSliceRefusedException {
    if (ask.priority().isEmpty()) return charge.priority();
    Priority p = ask.priority().get().value();
    if (p == Priority.HIGH && charge.priority() != Priority.HIGH) {
      throw refused(ask, ask.priority().get().field(), p.name().toLowerCase(Locale.ROOT), "above the normal priority " + charged(charge)
          + " (only an administrator's setting grants high)");
    }
    return p;
  }

  private static String charged(SoftCharge charge) {
    return "the scheduler charged (" + charge.source() + ")";
  }

  private static long mib(long bytes) {
    return bytes / Units.MIB;
  }

  private static SoftSliceRefusedException refused(SoftAsk ask, String field, String value, String why) {
    return new SoftSliceRefusedException(ask.source() + " " + field + " = " + value + ": "
        + why + "; a slice's own settings may lower what was charged, never raise it");
  }
}
