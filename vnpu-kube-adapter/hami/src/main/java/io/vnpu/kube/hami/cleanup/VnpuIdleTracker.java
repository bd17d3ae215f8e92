package io.vnpu.kube.hami.cleanup;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Since when each vNPU has been idle (not used by any container), so the cleanup destroys only
 * vNPUs idle for a whole grace period. A vNPU this process created starts its idle clock at
 * creation, so one created for a container that has not started yet survives until the grace period
 * has passed (upstream destroys it at the next scan, bug 9.5). Thread-safe.
 */
public final class VnpuIdleTracker {
  private final Map<VnpuKey, Instant> idleSince = new HashMap<>();
  private final Map<VnpuKey, String> ownerPodUid = new HashMap<>();

  /** Records a vNPU created now for a container that will use it, owner unknown. */
  public synchronized void created(VnpuKey key, Instant at) {
    idleSince.put(key, at);
  }

  /** Records a vNPU created now for a container of pod {@code podUid}. */
  public synchronized void created(VnpuKey key, Instant at, String podUid) {
    idleSince.put(key, at);
    ownerPodUid.put(key, Objects.requireNonNull(podUid, "podUid"));
  }

  /**
   * The UID of the pod this agent created {@code key} for; empty when not created here (or before a
   * restart).
   */
  public synchronized java.util.Optional<String> owner(VnpuKey key) {
    return java.util.Optional.ofNullable(ownerPodUid.get(key));
  }

  /** Forgets a vNPU (destroyed). */
  public synchronized void forget(VnpuKey key) {
    idleSince.remove(key);
    ownerPodUid.remove(key);
  }

  /**
   * Records one scan observation.
   *
   * @return true when the vNPU is idle now and has been idle for at least {@code grace}
   */
  public synchronized boolean observe(VnpuKey key, boolean inUse, Instant now, Duration grace) {
    if (inUse) {
      idleSince.remove(key);
      return false;
    }
    Instant since = idleSince.computeIfAbsent(key, k -> now);
    return !now.isBefore(since.plus(grace));
  }

  /** Drops entries of vNPUs on {@code logicId} that no longer exist. */
  public synchronized void retainOnDevice(int logicId, Set<VnpuKey> existing) {
    idleSince.keySet().removeIf(k -> k.logicId() == logicId && !existing.contains(k));
    ownerPodUid.keySet().removeIf(k -> k.logicId() == logicId && !existing.contains(k));
  }

  /** Number of tracked vNPUs (for tests and metrics). */
  public synchronized int size() {
    return idleSince.size();
  }

  /** When {@code key} became idle, if tracked. */
  public synchronized java.util.Optional<Instant> idleSince(VnpuKey key) {
    return java.util.Optional.ofNullable(idleSince.get(key));
  }

  @Override
  public synchronized String toString() {
    return Objects.toString(idleSince);
  }
}
