package io.vnpu.api.health;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What one poll of one chip found.
 *
 * @param activeCodes codes the driver reports active now ({@code dcmi_get_device_errorcode_v2},
 *     zero entries dropped); empty when the card dropped
 * @param cardDropped {@code dcmi_get_device_health} returned -8012
 * @param linkUp parameter-plane link status; empty when the chip has no such link or it was not
 *     queried this time
 * @param error a driver error that made the poll incomplete (the codes are then empty and the
 *     previous state is kept), e.g. {@code dcmi_get_device_errorcode_v2: -8010}
 */
public record ChipReading(
    Set<FaultCode> activeCodes,
    boolean cardDropped,
    Optional<Boolean> linkUp,
    Optional<String> error) {
  public ChipReading {
    activeCodes = Set.copyOf(activeCodes);
    Objects.requireNonNull(linkUp, "linkUp");
    Objects.requireNonNull(error, "error");
  }

  /** A complete reading. */
  public static ChipReading of(Set<FaultCode> codes, Optional<Boolean> linkUp) {
    return new ChipReading(codes, false, linkUp, Optional.empty());
  }

  /** The card dropped off the bus. */
  public static ChipReading dropped() {
    return new ChipReading(Set.of(), true, Optional.empty(), Optional.empty());
  }

  /** The poll failed; nothing is known. */
  public static ChipReading failed(String error) {
    return new ChipReading(Set.of(), false, Optional.empty(), Optional.of(error));
  }
}
