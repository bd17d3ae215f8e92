package io.vnpu.kube.hami.codec;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The decoded value of {@code hami.io/<cw>-devices-to-allocate}: one entry per container (HAMi
 * {@code PodSingleDevice}). Immutable; {@link #pop()} returns the next state.
 *
 * @param containers per-container device lists; an empty list is a container with nothing pending
 */
public record PodDevices(List<List<ContainerDevice>> containers) {
  public PodDevices {
    containers = containers.stream().map(List::copyOf).toList();
  }

  /** The first container that still has devices pending, if any. */
  public Optional<PendingContainer> next() {
    for (int i = 0; i < containers.size(); i++) {
      if (!containers.get(i).isEmpty())
        return Optional.of(new PendingContainer(i, containers.get(i)));
    }
    return Optional.empty();
  }

  /** True when no container has devices pending. */
  public boolean isDone() {
    return next().isEmpty();
  }

  /**
   * Takes the first non-empty container entry.
   *
   * @return the entry and the remaining state (that entry replaced by an empty one)
   * @throws HamiFormatException {@code no pending device allocation found} when every entry is
   *     empty
   */
  public Popped pop() throws HamiFormatException {
    PendingContainer head =
        next().orElseThrow(() -> new HamiFormatException("no pending device allocation found"));
    List<List<ContainerDevice>> rest = new ArrayList<>(containers);
    rest.set(head.index(), List.of());
    return new Popped(head, new PodDevices(rest));
  }

  /** Result of {@link #pop()}. */
  public record Popped(PendingContainer container, PodDevices remaining) {}
}
