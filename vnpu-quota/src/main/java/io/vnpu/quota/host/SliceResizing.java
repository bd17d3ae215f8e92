package io.vnpu.quota.host;

import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.PolicyFlag;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.model.SizedBy;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.registry.ComputeRegistry;
import java.io.IOException;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

/**
 * The one place a live resize is applied: the rule (only {@link SizedBy#HOST} slices), the quota
 * region (under its config seqlock: the limiters re-read it), the compute registry entry (what
 * neighbours' limiters count the slice at) and the slice record ({@code vnpu slices}, {@code vnpu
 * top}).
 */
final class SliceResizing {
  private SliceResizing() {}

  /** What a resize did: the device quota before and after. */
  record Applied(DeviceQuota before, DeviceQuota after) {}

  /**
   * @param what names the slice in messages ("slice train", or the region file)
   * @param registry the slice's NPU registry, or empty when the region names none
   * @param sizes the slice's record: what the change leaves alone is kept from it, never from the
   *     region (its tenant can write the region: a raised weight or cap there must not be copied
   *     back into the record or the registry)
   * @throws SliceResizeException when the slice may not be resized, or the change does not fit it
   */
  static Applied apply(
      String what,
      QuotaRegion region,
      Optional<ComputeRegistry> registry,
      SliceResize change,
      SliceRecord sizes)
      throws IOException {
    if (change.isEmpty())
      throw new SliceResizeException(
          what + ": nothing to change (give --memory, --core or --weight)");
    if (region.sizedBy() != SizedBy.HOST) {
      throw new SliceResizeException(
          what
              + ": its sizes were charged by a scheduler (DRA plugin or device plugin, "
              + "sized_by = "
              + region.sizedBy().name().toLowerCase(java.util.Locale.ROOT)
              + "); they are not resized live: change its claim or pod instead");
    }
    RegionConfig config = region.readConfig();
    if (config.devices().size() != 1) {
      throw new SliceResizeException(
          what + ": a host slice has one device, its region has " + config.devices().size());
    }
    boolean computeChange = change.weight().isPresent() || change.capPct().isPresent();
    if (computeChange && !config.policy().contains(PolicyFlag.COMPUTE_ENFORCE)) {
      throw new SliceResizeException(
          what
              + ": its AI-core share is not enforced (policy without COMPUTE_ENFORCE); "
              + "only --memory can change");
    }
    DeviceQuota inRegion = config.devices().get(0);
    DeviceQuota q =
        new DeviceQuota(
            sizes.memoryLimitBytes(),
            sizes.weight(),
            sizes.capPct(),
            sizes.priority(),
            sizes.phyId(),
            inRegion.uuid());
    DeviceQuota n =
        new DeviceQuota(
            change.memoryLimitBytes().orElse(q.memLimitBytes()),
            change.weight().orElse(q.computeWeight()),
            change.capPct().orElse(q.computeCapPct()),
            q.priority(),
            q.physId(),
            q.uuid());
    EnumSet<PolicyFlag> policy =
        config.policy().isEmpty()
            ? EnumSet.noneOf(PolicyFlag.class)
            : EnumSet.copyOf(config.policy());
    if (n.computeCapPct() > 0) policy.add(PolicyFlag.HARD_CAP);
    else policy.remove(PolicyFlag.HARD_CAP);
    // a slice that shrinks does so before its neighbours count it smaller, one that grows after
    // they
    // count it larger: the shares never add up to more than the NPU on the way
    boolean shrinks = n.computeWeight() < q.computeWeight() || capOf(n) < capOf(q);
    RegionConfig next = new RegionConfig(List.of(n), policy, config.registryDir());
    if (shrinks) region.updateConfig(next);
    if (computeChange
        && registry.isPresent()
        && !registry.get().updateShare(region.epoch(), n.computeWeight(), n.computeCapPct())) {
      if (shrinks) region.updateConfig(config);
      throw new SliceResizeException(
          what
              + ": not registered in compute registry "
              + registry.get().file()
              + " (key "
              + Long.toHexString(region.epoch())
              + "); nothing changed");
    }
    if (!shrinks) region.updateConfig(next);
    return new Applied(q, n);
  }

  /**
   * Resizes a host slice and rewrites its record with the new sizes.
   *
   * @return the new record
   */
  static SliceRecord applyToSlice(
      SliceStore store,
      SliceRecord r,
      QuotaRegion region,
      ComputeRegistry registry,
      SliceResize change)
      throws IOException {
    Applied a = apply("slice " + r.name(), region, Optional.of(registry), change, r);
    SliceRecord next =
        r.withSizes(
            a.after().memLimitBytes(), a.after().computeWeight(), a.after().computeCapPct());
    store.update(next);
    return next;
  }

  private static int capOf(DeviceQuota q) {
    return q.computeCapPct() == 0 ? 100 : q.computeCapPct();
  }
}
