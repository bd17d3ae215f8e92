package io.vnpu.kube.hami.codec;

import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;

/**
 * The scheduler's node lock, node annotation {@code hami.io/mutex.lock} (protocol spec section
 * 3.1): {@code <RFC3339 time>,<namespace>,<podName>}, or a bare RFC3339 time in the legacy format
 * (no owner).
 *
 * @param value the annotation value exactly as read (releasing compares against it)
 * @param lockedAt when the scheduler took the lock
 * @param namespace owner pod namespace, empty for the legacy format
 * @param podName owner pod name, empty for the legacy format
 */
public record NodeLock(String value, OffsetDateTime lockedAt, String namespace, String podName) {
  public NodeLock {
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(lockedAt, "lockedAt");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(podName, "podName");
  }

  /** The owning pod as {@code namespace/name}, empty for a legacy lock. */
  public Optional<String> owner() {
    return namespace.isEmpty() ? Optional.empty() : Optional.of(namespace + "/" + podName);
  }

  /**
   * Parses an annotation value.
   *
   * @throws HamiFormatException when the time is not RFC3339 or the value does not have one or
   *     three comma-separated fields with non-empty namespace and name
   */
  public static NodeLock parse(String value) throws HamiFormatException {
    String[] f = value.split(",", -1);
    if (f.length != 1 && f.length != 3) {
      throw new HamiFormatException(
          "node lock hami.io/mutex.lock value \""
              + value
              + "\" invalid: expected <RFC3339>,<namespace>,<pod>");
    }
    OffsetDateTime t;
    try {
      t = OffsetDateTime.parse(f[0]);
    } catch (DateTimeParseException e) {
      throw new HamiFormatException(
          "node lock hami.io/mutex.lock value \""
              + value
              + "\" invalid: time \""
              + f[0]
              + "\" is not RFC3339",
          e);
    }
    if (f.length == 1) return new NodeLock(value, t, "", "");
    if (f[1].isEmpty() || f[2].isEmpty()) {
      throw new HamiFormatException(
          "node lock hami.io/mutex.lock value \""
              + value
              + "\" invalid: empty namespace or pod name");
    }
    return new NodeLock(value, t, f[1], f[2]);
  }
}
