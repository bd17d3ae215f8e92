package io.vnpu.api.slice;

import io.vnpu.api.model.Npu;
import java.util.Objects;

/**
 * A physical NPU as an adapter names it: by phy ID (the {@code N} of {@code /dev/davinciN} and of
 * {@code ASCEND_VISIBLE_DEVICES}) and die-ID UUID (what HAMi annotations and ResourceSlices carry).
 * Logic IDs are node-local and never part of a decision.
 *
 * @param phyId physical ID, >= 0
 * @param uuid die-ID UUID ({@link Npu#uuid()}), not empty
 */
public record NpuRef(int phyId, String uuid) {
  public NpuRef {
    Objects.requireNonNull(uuid, "uuid");
    if (phyId < 0) throw new IllegalArgumentException("phyId must be >= 0: " + phyId);
    if (uuid.isEmpty()) throw new IllegalArgumentException("uuid must not be empty");
  }

  /** The reference of a discovered NPU. */
  public static NpuRef of(Npu npu) {
    return new NpuRef(npu.phyId(), npu.uuid());
  }
}
