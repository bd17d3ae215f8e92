package io.vnpu.kube.dra.cdi;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Objects;

/**
 * One device of a CDI spec; the runtime resolves {@code <kind>=<name>} to it.
 *
 * @param name letters, digits, {@code . _ : -}; alphanumeric first and last
 * @param containerEdits edits for this device only (the field is required by CDI, may be empty)
 */
@JsonPropertyOrder({"name", "containerEdits"})
public record CdiDevice(
    String name, @JsonInclude(JsonInclude.Include.ALWAYS) CdiContainerEdits containerEdits) {
  public CdiDevice {
    Objects.requireNonNull(name, "name");
    if (!CdiKind.isValidDeviceName(name)) {
      throw new IllegalArgumentException("invalid CDI device name '" + name + "'");
    }
    containerEdits = containerEdits == null ? CdiContainerEdits.EMPTY : containerEdits;
  }
}
