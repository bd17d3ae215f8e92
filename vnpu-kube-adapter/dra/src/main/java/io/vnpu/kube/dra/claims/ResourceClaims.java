package io.vnpu.kube.dra.claims;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;

/**
 * Where the driver reads and writes ResourceClaims: {@code resource.k8s.io/v1}, the one place the
 * API version is named (the fetch, the presence check and the status writer all go through here).
 */
final class ResourceClaims {
  private ResourceClaims() {}

  /** The ResourceClaims of the cluster. */
  static MixedOperation<ResourceClaim, ResourceClaimList, Resource<ResourceClaim>> of(
      KubernetesClient client) {
    return client.dynamicResourceAllocation().v1().resourceClaims();
  }

  /** The claim {@code namespace/name}. */
  static Resource<ResourceClaim> named(KubernetesClient client, String namespace, String name) {
    return of(client).inNamespace(namespace).withName(name);
  }
}
