package io.vnpu.kube.mindcluster.health;

import java.time.Instant;
import java.util.Objects;

/**
 * One active fault of a chip, as reported in the device-info ConfigMap's {@code -Fault} list
 * (spec section 3.6).
 *
 * @param code  driver fault code ({@code dcmi_get_device_errorcode_v2} or a synthetic code such
 *              as {@code 0x40F84E00} card drop), unsigned 32-bit value held in a long
 * @param kind  whether it is a chip fault or a parameter-plane network fault
 * @param level MindCluster fault level name, e.g. {@code SeparateNPU}, {@code NotHandleFault}
 * @param since when the fault was first seen
 */
public record ChipFault(long code, Kind kind, String level, Instant since) {
  /** {@code fault_type} of the ConfigMap entry. */
  public enum Kind {
    /** {@code CardUnhealthy}. */
    CHIP("CardUnhealthy"),
    /** {@code CardNetworkUnhealthy}. */
    NETWORK("CardNetworkUnhealthy");

    private final String faultType;

    Kind(String faultType) {
      this.faultType = faultType;
    }

    /** The ConfigMap's {@code fault_type} value. */
    public String faultType() {
      return faultType;
    }
  }

  public ChipFault {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(level, "level");
    Objects.requireNonNull(since, "since");
  }

  /** The code as the ConfigMap writes it: 8 upper-case hex digits, no {@code 0x}. */
  public String hexCode() {
    return String.format("%08X", code);
  }
}
