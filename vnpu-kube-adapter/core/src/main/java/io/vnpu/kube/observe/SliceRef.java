package io.vnpu.kube.observe;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One soft slice as the metrics see it: whose it is and where its quota region lies.
 *
 * @param namespace pod namespace
 * @param pod pod name
 * @param container container name (for DRA: the claim's {@code namespace/name} is in {@code pod},
 *     the request name here)
 * @param region host path of the slice's quota region file
 */
public record SliceRef(String namespace, String pod, String container, Path region) {
  public SliceRef {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(pod, "pod");
    Objects.requireNonNull(container, "container");
    Objects.requireNonNull(region, "region");
  }
}
