package io.vnpu.kube.dra.modes;

/**
 * How one NPU is offered through DRA and what preparing a share of it means.
 *
 * <ul>
 *   <li>{@link #WHOLE}: published without {@code allowMultipleAllocations}; one claim gets the
 *       whole chip, nothing is created at prepare.
 *   <li>{@link #HARD_VNPU}: {@code allowMultipleAllocations} with {@code memCapacity} valid values
 *       = the chip's template sizes; each share gets a DCMI vNPU ({@code --enable-hard-vnpu}).
 *   <li>{@link #SOFT}: {@code allowMultipleAllocations} with consumable memory (bytes) and AI-core
 *       percent; each share gets a quota region enforced by the limiter in the container ({@code
 *       --enable-soft-slicing}).
 * </ul>
 */
public enum ChipMode {
  WHOLE,
  HARD_VNPU,
  SOFT;

  /** Whether devices of this mode are published with {@code allowMultipleAllocations: true}. */
  public boolean shared() {
    return this != WHOLE;
  }
}
