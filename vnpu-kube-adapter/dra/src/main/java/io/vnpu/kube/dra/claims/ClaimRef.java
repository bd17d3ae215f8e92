package io.vnpu.kube.dra.claims;

import java.util.Objects;

/**
 * A ResourceClaim as the kubelet names it in NodePrepareResources / NodeUnprepareResources (proto
 * {@code Claim}: namespace = 1, uid = 2, name = 3).
 */
public record ClaimRef(String namespace, String uid, String name) {
  public ClaimRef {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(uid, "uid");
    Objects.requireNonNull(name, "name");
  }

  @Override
  public String toString() {
    return namespace + "/" + name + " (uid " + uid + ")";
  }
}
