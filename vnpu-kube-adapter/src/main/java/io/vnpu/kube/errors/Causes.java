package io.vnpu.kube.errors;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * One-line text of a failure with its causes, for log lines an operator reads. fabric8's
 * {@code KubernetesClientException} says only "Operation: [get] for kind: [ConfigMap] ... failed.";
 * why (connection refused, unknown host, 403) is in its cause chain, so the chain is joined with
 * {@code ": "}. A message that repeats the previous one (wrappers often copy it) is left out; a cause
 * without a message is named by its simple class name, the only thing it has; a wrapper whose message is
 * only its cause's {@code toString()} is skipped.
 */
public final class Causes {
  private static final int MAX_DEPTH = 8;

  private Causes() {}

  /**
   * The messages of {@code t} and its causes, outermost first, e.g. {@code "Operation: [list] for kind:
   * [Pod] ... failed.: Failed to connect to /127.0.0.1:6443: Connection refused"}.
   *
   * @param t the failure; {@code null} gives {@code "unknown error"}
   */
  public static String describe(Throwable t) {
    if (t == null) return "unknown error";
    List<String> parts = new ArrayList<>();
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable c = t; c != null && seen.put(c, Boolean.TRUE) == null && parts.size() < MAX_DEPTH;
        c = c.getCause()) {
      // new RuntimeException(cause) copies cause.toString() (a class name) as its message: skip it
      if (c.getCause() != null && c.getCause().toString().equals(c.getMessage())) continue;
      String m = c.getMessage() == null || c.getMessage().isBlank()
          ? c.getClass().getSimpleName() : c.getMessage().strip().replaceAll("\\s+", " ");
      if (!parts.isEmpty() && parts.get(parts.size() - 1).contains(m)) continue;
      parts.add(m);
    }
    return String.join(": ", parts);
  }
}
