package io.vnpu.kube.errors;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * One-line text of a failure with its causes, for log lines an operator reads. fabric8's {@code
 * KubernetesClientException} says only "Operation: [get] for kind: [ConfigMap] ... failed."; why
 * (connection refused, unknown host, 403) is in its cause chain, so the chain is joined with {@code
 * ": "}. A message that repeats the previous one (wrappers often copy it) is left out, and so is a
 * wrapper without a message; the innermost cause without one is put in words when it is a network
 * failure (unresolvable host, refused connection, timeout), else named by its simple class name,
 * the only thing it has; a wrapper whose message is only its cause's {@code toString()} is skipped.
 */
public final class Causes {
  private static final int MAX_DEPTH = 8;

  private Causes() {}

  /**
   * The messages of {@code t} and its causes, outermost first, e.g. {@code "Operation: [list] for
   * kind: [Pod] ... failed.: Failed to connect to /127.0.0.1:6443: Connection refused"}.
   *
   * @param t the failure; {@code null} gives {@code "unknown error"}
   */
  public static String describe(Throwable t) {
    if (t == null) return "unknown error";
    List<String> parts = new ArrayList<>();
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable c = t;
        c != null && seen.put(c, Boolean.TRUE) == null && parts.size() < MAX_DEPTH;
        c = c.getCause()) {
      // new RuntimeException(cause) copies cause.toString() (a class name) as its message: skip it
      if (c.getCause() != null && c.getCause().toString().equals(c.getMessage())) continue;
      boolean silent = c.getMessage() == null || c.getMessage().isBlank();
      if (silent && c.getCause() != null) continue; // a bare wrapper: its cause says more
      String m = silent ? plain(c) : c.getMessage().strip().replaceAll("\\s+", " ");
      if (!parts.isEmpty() && parts.get(parts.size() - 1).contains(m)) continue;
      parts.add(m);
    }
    return String.join(": ", parts);
  }

  /** Words for the message-less exceptions a network call ends in; else the simple class name. */
  private static String plain(Throwable t) {
    return switch (t.getClass().getName()) {
      case "java.nio.channels.UnresolvedAddressException" -> "host name does not resolve";
      case "java.net.ConnectException" -> "connection refused";
      case "java.net.SocketTimeoutException", "java.net.http.HttpTimeoutException" -> "timed out";
      case "java.nio.channels.ClosedChannelException" -> "connection closed";
      default -> t.getClass().getSimpleName();
    };
  }
}
