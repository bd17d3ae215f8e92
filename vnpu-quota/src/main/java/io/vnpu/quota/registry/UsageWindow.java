package io.vnpu.quota.registry;

import static io.vnpu.quota.layout.RegistryLayout.REG_PUB_ACTIVE;
import static io.vnpu.quota.layout.RegistryLayout.REG_PUB_SATURATED;
import static io.vnpu.quota.layout.RegistryLayout.REG_PUB_VALID;
import static io.vnpu.quota.layout.RegistryLayout.REG_SATURATED_PPM;

/**
 * What the publisher knows of one registered container's usage: its counters sampled every period,
 * reduced to the figures the registry publishes (device time used over the window, time its
 * launches waited over the window, active, saturated). Same arithmetic as {@code registry_agent.c}.
 * Not thread-safe (the publisher's thread only).
 */
final class UsageWindow {
  private static final int HISTORY = 128;
  private static final long FULL = 1_000_000L;

  private final long windowNs;
  private final long[] t = new long[HISTORY];
  private final long[] busy = new long[HISTORY];
  private final long[] blocked = new long[HISTORY];
  private int head;
  private int n;
  private long lastActivity;
  private long lastBusy;
  private long activeSeenNs;
  private int flags;
  private int usedPpm;
  private int blockedPpm;

  UsageWindow(long windowNs) {
    this.windowNs = windowNs;
  }

  /**
   * Adds one sample taken at {@code nowNs} (monotonic) and updates the figures.
   *
   * @param activityNs the region's last_launch_ns (compared for change only: no clock is shared)
   */
  void add(long nowNs, long busyNs, long blockedNs, long activityNs, long activeWindowNs) {
    if (n > 0 && (activityNs != lastActivity || busyNs != lastBusy)) activeSeenNs = nowNs;
    lastActivity = activityNs;
    lastBusy = busyNs;
    int idx;
    if (n == HISTORY) {
      head = (head + 1) % HISTORY;
      idx = (head + HISTORY - 1) % HISTORY;
    } else {
      idx = (head + n) % HISTORY;
      n++;
    }
    t[idx] = nowNs;
    busy[idx] = busyNs;
    blocked[idx] = blockedNs;
    int o = head;
    for (int k = 0; k < n; k++) {
      int j = (head + k) % HISTORY;
      if (nowNs - t[j] <= windowNs) {
        o = j;
        break;
      }
    }
    if (o == idx || nowNs <= t[o]) {
      flags = 0; // one sample: nothing known yet
      return;
    }
    long dt = nowNs - t[o];
    usedPpm = ppm(busyNs - busy[o], dt);
    blockedPpm = ppm(blockedNs - blocked[o], dt);
    flags = REG_PUB_VALID;
    if (activeSeenNs != 0 && nowNs - activeSeenNs <= activeWindowNs) flags |= REG_PUB_ACTIVE;
    if (blockedPpm >= REG_SATURATED_PPM) flags |= REG_PUB_SATURATED | REG_PUB_ACTIVE;
  }

  /**
   * The region could not be read this period: nothing is known (it counts at its weighted share).
   */
  void unknown() {
    flags = 0;
  }

  private static int ppm(long delta, long dt) {
    if (delta <= 0) return 0;
    if (delta >= dt) return (int) FULL;
    return (int) (delta * FULL / dt); // delta < dt < 2^63 / 1e6 for any window below ~100 days
  }

  int flags() {
    return flags;
  }

  int usedPpm() {
    return flags == 0 ? 0 : usedPpm;
  }

  int blockedPpm() {
    return flags == 0 ? 0 : blockedPpm;
  }
}
