package io.vnpu.kube.hami;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.util.List;
import java.util.Map;

/**
 * Nodes and pods as the HAMi scheduler leaves them at Bind. Created with create-or-update: on a
 * loaded machine the client may retry a POST that timed out but was stored.
 */
final class KubeFixtures {
  static final String NODE = "node-1";

  private KubeFixtures() {}

  static Node node(KubernetesClient client, Map<String, String> annotations) {
    return client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE)
        .withAnnotations(annotations).endMetadata().build()).createOr(NonDeletingOperation::update);
  }

  /**
   * A Pending pod bound to {@link #NODE} with the scheduler's bind annotations plus {@code extra}.
   *
   * @param containers regular container names
   */
  static Pod pod(KubernetesClient client, String name, long bindTime, Map<String, String> extra,
      List<String> initContainers, List<String> containers) {
    Map<String, String> a = new java.util.HashMap<>(Map.of("hami.io/bind-time", Long.toString(bindTime),
        "hami.io/bind-phase", "allocating", "hami.io/vgpu-node", NODE));
    a.putAll(extra);
    Pod p = new PodBuilder().withNewMetadata().withName(name).withNamespace("default")
        .withAnnotations(a).addToLabels("hami.io/vgpu-node", a.get("hami.io/vgpu-node")).endMetadata()
        .withNewSpec().withNodeName(NODE)
        .withInitContainers(initContainers.stream().map(c -> new ContainerBuilder().withName(c).withImage("busybox").build()).toList())
        .withContainers(containers.stream().map(c -> new ContainerBuilder().withName(c).withImage("busybox").build()).toList())
        .endSpec().withNewStatus().withPhase("Pending").endStatus().build();
    return client.pods().inNamespace("default").resource(p).createOr(NonDeletingOperation::update);
  }

  static Map<String, String> podAnnotations(KubernetesClient client, String name) {
    return client.pods().inNamespace("default").withName(name).get().getMetadata().getAnnotations();
  }

  static String uid(KubernetesClient client, String name) {
    return client.pods().inNamespace("default").withName(name).get().getMetadata().getUid();
  }

  static Map<String, String> nodeAnnotations(KubernetesClient client) {
    Map<String, String> a = client.nodes().withName(NODE).get().getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }
}
