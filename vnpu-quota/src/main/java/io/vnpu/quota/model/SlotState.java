package io.vnpu.quota.model;

/** State of a process slot ({@code state} u32 of a slot). */
public enum SlotState {
  FREE,
  CLAIMING,
  ACTIVE,
  REAPING;

  /** Decodes the u32 value; unknown values throw. */
  public static SlotState of(int v) {
    if (v < 0 || v >= values().length) throw new IllegalArgumentException("slot state " + v);
    return values()[v];
  }
}
