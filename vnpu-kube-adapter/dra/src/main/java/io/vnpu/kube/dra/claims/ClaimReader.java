package io.vnpu.kube.dra.claims;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;

/**
 * Where NodePrepareResources gets the claims the kubelet names: the API server ({@link
 * ClaimFetcher}) in the plugin, anything else for embedders and benchmarks.
 */
@FunctionalInterface
public interface ClaimReader {

  /**
   * The allocated claim {@code ref} names, with the same UID.
   *
   * @throws ClaimFetchException naming the claim when it cannot be read or is not the one meant
   */
  ResourceClaim fetch(ClaimRef ref) throws ClaimFetchException;
}
