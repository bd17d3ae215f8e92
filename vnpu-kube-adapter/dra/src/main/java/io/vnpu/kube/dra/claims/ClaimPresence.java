package io.vnpu.kube.dra.claims;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.kube.errors.Causes;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Which prepared claims are gone from the API server: a claim deleted (or deleted and re-created
 * under its name, so with another UID) while the kubelet never called NodeUnprepareResources for it
 * (a force-deleted pod, a node that was down, a checkpoint rebuilt after the kubelet forgot it).
 * Only an answer of the API server makes a claim gone: 404, or a claim of that name with another
 * UID; any error (403, 409, 410, 500, a timeout) leaves the claim as it is for the next round, so a
 * flaky API server never releases a device a container uses.
 *
 * <p>A claim is read by namespace and name (GET, as {@link ClaimFetcher} does); one rebuilt from
 * its CDI spec knows only its UID, so when there is such a claim the claims of all namespaces are
 * listed once (in pages of {@value #PAGE}) and matched by UID.
 */
public final class ClaimPresence {
  static final long PAGE = 500;

  private final KubernetesClient client;

  public ClaimPresence(KubernetesClient client) {
    this.client = Objects.requireNonNull(client, "client");
  }

  /**
   * The claims of {@code prepared} the API server no longer has, each with the reason.
   *
   * @param prepared claims as recorded (namespace and name empty when only the UID is known)
   * @param problems told what could not be checked this round (one line each)
   * @return UID → why it is gone
   */
  public Map<String, String> gone(
      Collection<ClaimRef> prepared, java.util.function.Consumer<String> problems) {
    Map<String, String> out = new LinkedHashMap<>();
    Set<String> byUidOnly = new HashSet<>();
    for (ClaimRef ref : prepared) {
      if (ref.namespace().isEmpty() || ref.name().isEmpty()) {
        byUidOnly.add(ref.uid());
        continue;
      }
      ResourceClaim claim;
      try {
        claim = ResourceClaims.named(client, ref.namespace(), ref.name()).get();
      } catch (KubernetesClientException e) {
        problems.accept(
            "ResourceClaim " + ref + ": not checked against the API server: " + Causes.describe(e));
        continue;
      }
      if (claim == null) {
        out.put(ref.uid(), "ResourceClaim " + ref + " is gone from the API server");
      } else if (!ref.uid().equals(claim.getMetadata().getUid())) {
        out.put(
            ref.uid(),
            "ResourceClaim "
                + ref
                + " was replaced: the API server's has uid "
                + claim.getMetadata().getUid());
      }
    }
    if (!byUidOnly.isEmpty()) {
      Set<String> listed = new HashSet<>();
      try {
        String next = null;
        do {
          ResourceClaimList page =
              ResourceClaims.of(client)
                  .inAnyNamespace()
                  .list(
                      new io.fabric8.kubernetes.api.model.ListOptionsBuilder()
                          .withLimit(PAGE)
                          .withContinue(next)
                          .build());
          page.getItems().forEach(c -> listed.add(c.getMetadata().getUid()));
          next = page.getMetadata() == null ? null : page.getMetadata().getContinue();
        } while (next != null && !next.isEmpty());
      } catch (KubernetesClientException e) {
        problems.accept(
            "ResourceClaims known by UID only "
                + byUidOnly
                + ": not checked against"
                + " the API server: "
                + Causes.describe(e));
        return out;
      }
      for (String uid : byUidOnly) {
        if (!listed.contains(uid)) {
          out.put(uid, "no ResourceClaim with uid " + uid + " in any namespace");
        }
      }
    }
    return out;
  }
}
