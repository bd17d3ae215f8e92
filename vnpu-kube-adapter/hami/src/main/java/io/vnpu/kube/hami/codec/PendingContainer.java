package io.vnpu.kube.hami.codec;

import java.util.List;

/**
 * The devices the scheduler chose for one container, and the container's position in {@code
 * devices-to-allocate} (init containers first, then regular containers).
 *
 * @param index entry index, i.e. the container index in init-then-regular order
 * @param devices the container's devices, in annotation order, never empty
 */
public record PendingContainer(int index, List<ContainerDevice> devices) {
  public PendingContainer {
    devices = List.copyOf(devices);
    if (devices.isEmpty()) throw new IllegalArgumentException("a pending container has devices");
  }
}
