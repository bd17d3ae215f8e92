package io.vnpu.kube.softslice;

import io.vnpu.api.model.Priority;
import io.vnpu.api.model.Units;
import io.vnpu.api.slice.SharingPolicy;
import io.vnpu.api.slice.SliceShare.SoftQuota;
import java.util.Locale;
import java.util.Optional;

/**
 * The one rule for what a Kubernetes soft slice may get: its memory quota, AI-core ceiling, compute
 * weight and launch priority never exceed what the scheduler charged for it ({@link SoftCharge});
 * the slice's own settings ({@link SoftAsk}: opaque configuration, annotations a tenant can edit)
 * may lower them or pick a policy within the charge, never raise them. HAMi, MindCluster and DRA
 * all grant their soft slices here; {@code vnpu run} (no scheduler, unlimited allowed) does not.
 *
 * <p>Per device, with {@code c} the charged AI-core percent:
 *
 * <ul>
 *   <li>memory: the charge, or less (1 byte .. the charge);
 *   <li>weight: {@code c} by default, or 1..{@code c} (the weight is the share of a busy chip among
 *       its slices; a larger weight takes AI-core time its neighbours were charged for);
 *   <li>ceiling: {@code c} by default, or 1..{@code c}; none (0) only when {@code c} is 100, the
 *       whole chip's AI Core;
 *   <li>memory only (no compute limiting): only when {@code c} is 100, or 0 (the scheduler accounts
 *       no AI Core for the slice, HAMi's upstream meaning of a missing core request: weight and
 *       ceiling are then 0 and cannot be asked for);
 *   <li>priority: at most the charge's ({@code HIGH} only where an administrator granted it);
 *   <li>sharing policy ({@link SharingPolicy}, {@code docs/sharing-policies.md}): the charge's
 *       (none named = {@code fixed-share}), or {@code best-effort} (gives up the guarantee, keeps
 *       the charged ceiling), or {@code fixed-share} where {@code elastic} was charged (adds the
 *       ceiling); {@code elastic} (borrowing idle time) only where the charge is elastic. A charged
 *       {@code elastic} or {@code best-effort} slice has no ceiling unless it asks for one
 *       (1..100); a {@code fixed-share} one has {@code c}.
 * </ul>
 *
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
        throw refused(
            ask,
            ask.memory().get().field(),
            mib(v) + " MiB",
            v <= 0
                ? "a Kubernetes soft slice must be > 0 MiB (0 would be an unlimited region)"
                : "more than the " + mib(charge.memoryBytes()) + " MiB " + charged(charge));
      }
      memory = v;
    }
    int c = charge.corePct();
    boolean unenforcedAllowed = c == 0 || c == 100;
    if (ask.memoryOnly().isPresent() && ask.memoryOnly().get().value()) {
      if (!unenforcedAllowed) {
        throw refused(
            ask,
            ask.memoryOnly().get().field(),
            "true",
            "no compute limit on a slice charged "
                + c
                + " % AI Core ("
                + charged(charge)
                + ") would take AI-core time its neighbours were charged for");
      }
      return new SoftQuota(memory, 0, 0, priority(charge, ask));
    }
    Optional<SharingPolicy> policy = policy(charge, ask);
    SharingPolicy charged = charge.policy().orElse(SharingPolicy.FIXED_SHARE);
    SharingPolicy effective = policy.orElse(charged);
    // the ceiling the charge and the picked policy give: a fixed share is its own ceiling;
    // best-effort
    // keeps the charged one; elastic has none
    boolean ceilinged =
        effective == SharingPolicy.FIXED_SHARE
            || effective == SharingPolicy.BEST_EFFORT && charged == SharingPolicy.FIXED_SHARE;
    int weight = c;
    if (ask.weight().isPresent()) {
      int w = ask.weight().get().value();
      if (w < 1 || w > c) {
        throw refused(
            ask,
            ask.weight().get().field(),
            Integer.toString(w),
            w < 1
                ? "a weight must be at least 1"
                : "more than the " + c + " % AI Core " + charged(charge));
      }
      weight = w;
    }
    int cap = ceilinged ? c : 0;
    if (ask.cap().isPresent() && !ceilinged) {
      int k = ask.cap().get().value();
      if (k < 0 || k > 100) {
        throw refused(ask, ask.cap().get().field(), Integer.toString(k), "not a percent in 0..100");
      }
      cap = k;
    } else if (ask.cap().isPresent()) {
      int k = ask.cap().get().value();
      if (k == 0 && c != 100) {
        throw refused(
            ask,
            ask.cap().get().field(),
            "0",
            "no ceiling on a slice charged " + c + " % AI Core (" + charged(charge) + ")");
      }
      if (k < 0 || k > c) {
        throw refused(
            ask,
            ask.cap().get().field(),
            Integer.toString(k),
            "more than the " + c + " % AI Core " + charged(charge));
      }
      cap = k;
    }
    SoftQuota q = new SoftQuota(memory, weight, cap, priority(charge, ask));
    return policy.map(q::withPolicy).orElse(q);
  }

  /**
   * The policy asked if it does not raise the charge's, else the charge's; empty when neither names
   * one.
   */
  private static Optional<SharingPolicy> policy(SoftCharge charge, SoftAsk ask)
      throws SoftSliceRefusedException {
    if (charge.corePct() == 0) {
      // memory only: no AI-core share to share
      if (ask.policy().isEmpty()) return Optional.empty();
      throw refused(
          ask,
          ask.policy().get().field(),
          ask.policy().get().value().wireName(),
          "a sharing policy needs an AI-core share, and " + charged(charge) + " none (0 %)");
    }
    if (ask.policy().isEmpty()) return charge.policy();
    SharingPolicy a = ask.policy().get().value();
    SharingPolicy charged = charge.policy().orElse(SharingPolicy.FIXED_SHARE);
    boolean lowers =
        a == charged
            || a == SharingPolicy.BEST_EFFORT
            || a == SharingPolicy.FIXED_SHARE && charged == SharingPolicy.ELASTIC;
    if (!lowers) {
      throw refused(
          ask,
          ask.policy().get().field(),
          a.wireName(),
          "borrowing idle AI-core time beyond the "
              + charge.corePct()
              + " % "
              + charged(charge)
              + " as "
              + charged.wireName());
    }
    return Optional.of(a);
  }

  private static Priority priority(SoftCharge charge, SoftAsk ask)
      throws SoftSliceRefusedException {
    if (ask.priority().isEmpty()) return charge.priority();
    Priority p = ask.priority().get().value();
    if (p == Priority.HIGH && charge.priority() != Priority.HIGH) {
      throw refused(
          ask,
          ask.priority().get().field(),
          p.name().toLowerCase(Locale.ROOT),
          "above the normal priority "
              + charged(charge)
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

  private static SoftSliceRefusedException refused(
      SoftAsk ask, String field, String value, String why) {
    return new SoftSliceRefusedException(
        ask.source()
            + " "
            + field
            + " = "
            + value
            + ": "
            + why
            + "; a slice's own settings may lower what was charged, never raise it");
  }
}
