package io.vnpu.kube.observe;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * One soft slice as the metrics see it: whose it is, where its quota region lies and what the agent
 * charged it.
 *
 * @param namespace pod namespace
 * @param pod pod name
 * @param container container name (for DRA: the claim's {@code namespace/name} is in {@code pod},
 *     the request name here)
 * @param region host path of the slice's quota region file (the container's to rewrite: usage is
 *     read there, limits never)
 * @param charged the agent's own record of what it charged the slice ({@link ChargedRegion}), for a
 *     region it created or one the limiter made itself; empty when it keeps none or cannot read it:
 *     then no limit is reported
 */
public record SliceRef(
    String namespace, String pod, String container, Path region, Optional<ChargedRegion> charged) {
  public SliceRef {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(pod, "pod");
    Objects.requireNonNull(container, "container");
    Objects.requireNonNull(region, "region");
    Objects.requireNonNull(charged, "charged");
  }
}
