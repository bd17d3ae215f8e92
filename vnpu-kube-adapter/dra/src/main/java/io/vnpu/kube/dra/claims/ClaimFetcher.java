package io.vnpu.kube.dra.claims;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.kube.errors.Causes;
import java.util.Objects;

/**
 * Reads the ResourceClaims the kubelet asks to prepare ({@code resource.k8s.io/v1}, GET by
 * namespace and name) and checks that each is the claim the kubelet means: same UID (a claim
 * deleted and re-created under the same name has a new one) and allocated.
 */
public final class ClaimFetcher implements ClaimReader {
  private final KubernetesClient client;

  public ClaimFetcher(KubernetesClient client) {
    this.client = Objects.requireNonNull(client, "client");
  }

  /**
   * The claim {@code ref} names.
   *
   * @throws ClaimFetchException naming the claim when it cannot be read, does not exist, has
   *     another UID or is not allocated
   */
  @Override
  public ResourceClaim fetch(ClaimRef ref) throws ClaimFetchException {
    ResourceClaim claim;
    try {
      claim = ResourceClaims.named(client, ref.namespace(), ref.name()).get();
    } catch (KubernetesClientException e) {
      throw new ClaimFetchException(
          "ResourceClaim "
              + ref.namespace()
              + "/"
              + ref.name()
              + ": reading it from the API server failed: "
              + Causes.describe(e),
          true,
          e);
    }
    if (claim == null) {
      throw new ClaimFetchException(
          "ResourceClaim " + ref.namespace() + "/" + ref.name() + ": not found", false, null);
    }
    String uid = claim.getMetadata().getUid();
    if (!ref.uid().equals(uid)) {
      throw new ClaimFetchException(
          "ResourceClaim "
              + ref.namespace()
              + "/"
              + ref.name()
              + ": metadata.uid = "
              + uid
              + ": the kubelet asked for uid "
              + ref.uid()
              + " (the claim was replaced)",
          false,
          null);
    }
    if (claim.getStatus() == null || claim.getStatus().getAllocation() == null) {
      throw new ClaimFetchException(
          "ResourceClaim "
              + ref.namespace()
              + "/"
              + ref.name()
              + ": status.allocation is not set (claim not allocated)",
          false,
          null);
    }
    return claim;
  }
}
