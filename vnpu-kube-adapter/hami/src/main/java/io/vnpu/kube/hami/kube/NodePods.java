package io.vnpu.kube.hami.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.kube.hami.codec.HamiNames;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one rule of which pods a HAMi node has: listed by {@code spec.nodeName} (as upstream) and by
 * the {@value HamiNames#VGPU_NODE} label the scheduler puts on its pods (found also where field
 * selectors are unsupported), kept only when their {@code spec.nodeName} is the node (the label is
 * the pod's own to write). For the pod finder, the live allocations and the slice metrics.
 */
public final class NodePods {
  private NodePods() {}

  /**
   * The pods bound to {@code nodeName}, one per UID, those of the field selector first.
   *
   * @throws KubernetesClientException when either list fails
   */
  public static List<Pod> bound(KubernetesClient client, String nodeName) {
    Map<String, Pod> byUid = new LinkedHashMap<>();
    for (Pod p :
        client.pods().inAnyNamespace().withField("spec.nodeName", nodeName).list().getItems()) {
      byUid.put(p.getMetadata().getUid(), p);
    }
    for (Pod p :
        client.pods().inAnyNamespace().withLabel(HamiNames.VGPU_NODE, nodeName).list().getItems()) {
      byUid.putIfAbsent(p.getMetadata().getUid(), p);
    }
    return byUid.values().stream()
        .filter(p -> p.getSpec() != null && nodeName.equals(p.getSpec().getNodeName()))
        .toList();
  }

  /** Whether {@code p} has ended (phase {@code Succeeded} or {@code Failed}): it holds nothing. */
  public static boolean finished(Pod p) {
    String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }
}
