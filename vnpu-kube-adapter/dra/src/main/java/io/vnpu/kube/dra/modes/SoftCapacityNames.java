package io.vnpu.kube.dra.modes;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The names of the two consumable capacities of a soft-sliced NPU ({@code --capacity-names}), so
 * that claims written for HAMi's or openFuyao's Ascend DRA driver work unchanged.
 *
 * <ul>
 *   <li>{@link #HAMI} (default): {@code memory} and {@code cores}, the names of HAMi's
 *       ascend-dra-driver in its hami-vnpu-core mode;
 *   <li>{@link #OPENFUYAO}: {@code memCapacity} and {@code coreCapacity}, openFuyao's soft-slicing
 *       names.
 * </ul>
 *
 * Both have the same meaning: memory in bytes (a binary quantity such as {@code 4Gi}); AI-core time
 * in percent of the chip, 1..100.
 */
public enum SoftCapacityNames {
  HAMI("hami", "memory", "cores"),
  OPENFUYAO("openfuyao", "memCapacity", "coreCapacity");

  private final String flag;
  private final String memory;
  private final String cores;

  SoftCapacityNames(String flag, String memory, String cores) {
    this.flag = flag;
    this.memory = memory;
    this.cores = cores;
  }

  /** The value of {@code --capacity-names} that selects these names. */
  public String flag() {
    return flag;
  }

  /** Capacity name of device memory, bytes. */
  public String memory() {
    return memory;
  }

  /** Capacity name of AI-core time, percent 1..100. */
  public String cores() {
    return cores;
  }

  /**
   * The names {@code --capacity-names} selects (case-insensitive).
   *
   * @throws IllegalArgumentException naming the flag, the value and the known values
   */
  public static SoftCapacityNames parse(String value) {
    String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    for (SoftCapacityNames n : values()) {
      if (n.flag.equals(v)) {
        return n;
      }
    }
    throw new IllegalArgumentException(
        "--capacity-names = "
            + value
            + ": unknown (known: "
            + Arrays.stream(values()).map(SoftCapacityNames::flag).collect(Collectors.joining(", "))
            + ")");
  }
}
