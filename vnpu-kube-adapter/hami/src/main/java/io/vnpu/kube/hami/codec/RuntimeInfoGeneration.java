package io.vnpu.kube.hami.codec;

import java.util.OptionalInt;

/**
 * Which fields each HAMi generation writes into {@code huawei.com/<cw>} (protocol spec section
 * 3.3). The decoder reads all of them; the encoder uses this to produce what a given scheduler
 * would have written (tests and tools acting as the scheduler).
 */
public enum RuntimeInfoGeneration {
  /** HAMi up to v2.8: {@code UUID} and {@code temp} only; no soft split. */
  V2_8,
  /** HAMi v2.9 (5f0adaa): hard {@code UUID,temp}; hami-core {@code UUID,memory,core}. */
  V2_9,
  /**
   * HAMi v2.10 and later: hard {@code UUID,temp,memory} (plus {@code core} when non-zero);
   * hami-core {@code UUID,memory,core}.
   */
  V2_10;

  /**
   * The entry this generation writes for one device.
   *
   * @param template hard-split template, empty for whole card or hami-core
   * @param memoryMib charged memory, MiB
   * @param corePct charged AI-core percent (0 → no {@code core} key)
   * @param hamiCore whether the pod is a hami-core (soft split) pod
   * @throws IllegalArgumentException for a hami-core pod under {@link #V2_8}
   */
  public RuntimeInfo entry(
      String uuid, String template, int memoryMib, int corePct, boolean hamiCore) {
    OptionalInt core = corePct == 0 ? OptionalInt.empty() : OptionalInt.of(corePct);
    if (hamiCore) {
      if (this == V2_8) throw new IllegalArgumentException("HAMi v2.8 has no hami-core pods");
      return new RuntimeInfo(uuid, "", OptionalInt.of(memoryMib), core);
    }
    return switch (this) {
      case V2_8, V2_9 -> new RuntimeInfo(uuid, template, OptionalInt.empty(), OptionalInt.empty());
      case V2_10 -> new RuntimeInfo(uuid, template, OptionalInt.of(memoryMib), core);
    };
  }
}
