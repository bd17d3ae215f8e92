package io.vnpu.kube.hami.alloc;

import java.util.Objects;

/**
 * The container being served.
 *
 * @param namespace pod namespace
 * @param podName pod name
 * @param podUid pod UID
 * @param containerName container name derived from the entry index (init containers first)
 * @param podAnnotations the pod's annotations
 */
public record ContainerTarget(
    String namespace,
    String podName,
    String podUid,
    String containerName,
    java.util.Map<String, String> podAnnotations) {
  public ContainerTarget {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(podName, "podName");
    Objects.requireNonNull(podUid, "podUid");
    Objects.requireNonNull(containerName, "containerName");
    podAnnotations = java.util.Map.copyOf(podAnnotations);
  }
}
