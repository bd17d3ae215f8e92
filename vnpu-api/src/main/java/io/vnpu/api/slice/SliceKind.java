package io.vnpu.api.slice;

/** How a slice is carved out of a physical NPU. */
public enum SliceKind {
  /** The whole physical NPU. */
  WHOLE,
  /** A DCMI vNPU created from a template (hard slicing). */
  HARD,
  /** A memory quota and AI-core share enforced by the LD_PRELOAD limiter (soft slicing). */
  SOFT
}
