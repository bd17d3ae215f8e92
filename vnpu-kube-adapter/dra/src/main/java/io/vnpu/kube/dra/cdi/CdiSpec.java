package io.vnpu.kube.dra.cdi;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Objects;

/**
 * A CDI spec file (Container Device Interface spec 0.3.0 – 1.1.0 top level): the devices a
 * container runtime may inject under {@code kind}, and edits applied whenever any of them is.
 *
 * @param cdiVersion CDI spec version, see {@link CdiVersion#minimumFor(CdiSpec)}
 * @param kind {@code <vendor>/<class>}, e.g. {@code npu.huawei.com/npu}
 * @param devices at least one device
 * @param containerEdits spec-level edits (applied when any device of this spec is injected)
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonPropertyOrder({"cdiVersion", "kind", "devices", "containerEdits"})
public record CdiSpec(
    String cdiVersion, String kind, List<CdiDevice> devices, CdiContainerEdits containerEdits) {
  public CdiSpec {
    Objects.requireNonNull(cdiVersion, "cdiVersion");
    Objects.requireNonNull(kind, "kind");
    devices = List.copyOf(devices);
    if (devices.isEmpty()) {
      throw new IllegalArgumentException("a CDI spec needs at least one device");
    }
    containerEdits = containerEdits == null ? CdiContainerEdits.EMPTY : containerEdits;
  }

  /** The same spec with another version. */
  public CdiSpec withVersion(String version) {
    return new CdiSpec(version, kind, devices, containerEdits);
  }
}
