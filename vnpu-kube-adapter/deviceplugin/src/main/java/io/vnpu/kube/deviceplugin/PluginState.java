package io.vnpu.kube.deviceplugin;

/**
 * Lifecycle of a {@link DevicePluginServer}.
 *
 * <pre>
 * NEW ──start──▶ (serve) ──kubelet.sock present, Register ok──▶ REGISTERED
 *                   │ └──kubelet.sock absent──▶ WAITING_FOR_KUBELET ──kubelet.sock appears──▶ (serve)
 *                   └──bind or Register fails──▶ BACKOFF ──delay──▶ (serve)
 *                                                   └──restart budget spent──▶ FAILED
 * REGISTERED ──own socket vanished / kubelet.sock re-created──▶ (serve)   (not a failure)
 * REGISTERED ──gRPC server terminated by itself──▶ BACKOFF
 * REGISTERED ──every 5th ListAndWatch send in a row that reached no stream──▶ Register again ──▶ REGISTERED
 *            └──15th such send──▶ BACKOFF   (counts (5, 15) set by listAndWatchFailures)
 * any ──stop──▶ STOPPED
 * </pre>
 */
public enum PluginState {
  /** Constructed, {@code start()} not called yet. */
  NEW,
  /** Serving on its socket; kubelet.sock does not exist yet, so not registered. */
  WAITING_FOR_KUBELET,
  /** Serving and registered with the current kubelet. */
  REGISTERED,
  /** A start attempt or the running server failed; a restart is scheduled. */
  BACKOFF,
  /** Stopped on request; the socket is removed. Terminal. */
  STOPPED,
  /** Gave up after the restart budget was spent; the socket is removed. Terminal. */
  FAILED;

  /** Whether no further transition can happen. */
  public boolean terminal() {
    return this == STOPPED || this == FAILED;
  }
}
