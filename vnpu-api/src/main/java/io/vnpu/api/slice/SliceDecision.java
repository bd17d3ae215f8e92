package io.vnpu.api.slice;

import java.util.List;
import java.util.Objects;

/**
 * What an adapter decided for one container (or one DRA claim request): the NPUs it gets, in the
 * order the container will see them (device 0 first), and the share of each. Every device of a
 * decision has the same {@link SliceKind}: a container is either whole-card, hard or soft.
 *
 * @param devices 1..n devices, no NPU twice
 * @throws IllegalArgumentException for an empty list, mixed kinds or a repeated NPU
 */
public record SliceDecision(List<SliceDevice> devices) {
  public SliceDecision {
    devices = List.copyOf(Objects.requireNonNull(devices, "devices"));
    if (devices.isEmpty()) throw new IllegalArgumentException("a slice needs at least one device");
    SliceKind kind = devices.get(0).share().kind();
    for (SliceDevice d : devices) {
      if (d.share().kind() != kind) {
        throw new IllegalArgumentException(
            "a slice mixes "
                + kind
                + " and "
                + d.share().kind()
                + " devices (NPU "
                + d.npu().uuid()
                + ")");
      }
    }
    if (devices.stream().map(d -> d.npu().uuid()).distinct().count() != devices.size()) {
      throw new IllegalArgumentException(
          "a slice names an NPU twice: " + devices.stream().map(d -> d.npu().uuid()).toList());
    }
  }

  /** The kind every device shares. */
  public SliceKind kind() {
    return devices.get(0).share().kind();
  }
}
