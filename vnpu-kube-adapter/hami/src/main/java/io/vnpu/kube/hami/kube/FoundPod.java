package io.vnpu.kube.hami.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.vnpu.kube.hami.codec.NodeLock;
import java.util.Objects;
import java.util.Optional;

/**
 * The pod being bound and the node lock this Allocate may release.
 *
 * @param pod the pod as read from the API server
 * @param lock the node lock if it belongs to this pod (or is a legacy lock without owner)
 */
public record FoundPod(Pod pod, Optional<NodeLock> lock) {
  public FoundPod {
    Objects.requireNonNull(pod, "pod");
    Objects.requireNonNull(lock, "lock");
  }

  /** {@code namespace/name}. */
  public String key() {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
