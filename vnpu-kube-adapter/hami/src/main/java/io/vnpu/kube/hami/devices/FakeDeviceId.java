package io.vnpu.kube.hami.devices;

import java.util.Optional;

/**
 * The kubelet-facing fake device ID {@code <UUID>-<i>} (protocol spec section 1.3). The die-ID UUID
 * itself contains {@code -}, so the replica number is the text after the last one.
 */
public final class FakeDeviceId {
  private FakeDeviceId() {}

  public static String of(String uuid, int replica) {
    return uuid + "-" + replica;
  }

  /** The UUID part of a fake ID, empty when the ID has no numeric {@code -<i>} suffix. */
  public static Optional<String> uuidOf(String fakeId) {
    int dash = fakeId.lastIndexOf('-');
    if (dash <= 0 || dash == fakeId.length() - 1) return Optional.empty();
    for (int i = dash + 1; i < fakeId.length(); i++) {
      if (!Character.isDigit(fakeId.charAt(i))) return Optional.empty();
    }
    return Optional.of(fakeId.substring(0, dash));
  }
}
