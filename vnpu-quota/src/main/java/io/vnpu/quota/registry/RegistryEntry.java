package io.vnpu.quota.registry;

import io.vnpu.api.model.Priority;
import java.util.Map;

/**
 * Snapshot of one ACTIVE entry of a compute registry (layout v3: the entry is the node agent's;
 * launches, device time, throttled time and share are the publisher's last publication; the rest
 * comes from the container's quota region on the agent's own instance, zero elsewhere, see {@link
 * ComputeRegistry#entries()}).
 *
 * @param index entry index 0..63
 * @param key container key (quota region epoch)
 * @param name display name
 * @param weight share weight
 * @param capPct hard cap in percent, 0 = none
 * @param priority strict priority class
 * @param pinned registered by the node agent (always true in layout v2: only the agent registers)
 * @param live some process holds a slot of the container's quota region (its slot lock is held)
 * @param lastLaunchNs CLOCK_MONOTONIC ns the container was last active on this NPU, 0 = never
 * @param launches launches the limiter saw
 * @param busyNs estimated device time of those launches, ns
 * @param throttledNs time launches waited in the limiter, ns
 * @param sharePpm share of the NPU the limiter last computed (1,000,000 = all)
 * @param costNs latest per-launch device-time estimate, ns
 * @param samples device-time measurements taken
 * @param launchesBySymbol launches per runtime entry point name (only non-zero counts)
 * @param pubFlags the publication's flags ({@code REG_PUB_*} of {@code RegistryLayout}), 0 =
 *     unknown
 * @param usedPpm device time used over the publisher's window, ppm of wall time
 * @param blockedPpm time its launches waited over the window, ppm (saturated from 200,000)
 */
public record RegistryEntry(
    int index,
    long key,
    String name,
    int weight,
    int capPct,
    Priority priority,
    boolean pinned,
    boolean live,
    long lastLaunchNs,
    long launches,
    long busyNs,
    long throttledNs,
    int sharePpm,
    long costNs,
    long samples,
    Map<String, Long> launchesBySymbol,
    int pubFlags,
    int usedPpm,
    int blockedPpm) {
  public RegistryEntry {
    launchesBySymbol = Map.copyOf(launchesBySymbol);
  }
}
