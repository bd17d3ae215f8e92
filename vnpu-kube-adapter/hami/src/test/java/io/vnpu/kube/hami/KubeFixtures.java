package io.vnpu.kube.hami;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
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
    return client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(NODE)
                .withAnnotations(annotations)
                .endMetadata()
                .build())
        .createOr(NonDeletingOperation::update);
  }

  /**
   * A Pending pod bound to {@link #NODE} with the scheduler's bind annotations plus {@code extra}.
   * Like a pod the scheduler really placed, each container whose entry of a {@code
   * hami.io/<cw>-devices-to-allocate} annotation has devices requests that many {@code
   * huawei.com/<cw>} in its spec.
   *
   * @param containers regular container names
   */
  static Pod pod(
      KubernetesClient client,
      String name,
      long bindTime,
      Map<String, String> extra,
      List<String> initContainers,
      List<String> containers) {
    return pod(client, name, bindTime, extra, initContainers, containers, true);
  }

  /**
   * As above; with {@code specRequests} false no container requests anything (a pod whose owner
   * wrote the annotations himself).
   */
  static Pod pod(
      KubernetesClient client,
      String name,
      long bindTime,
      Map<String, String> extra,
      List<String> initContainers,
      List<String> containers,
      boolean specRequests) {
    Map<String, String> a =
        new java.util.HashMap<>(
            Map.of(
                "hami.io/bind-time",
                Long.toString(bindTime),
                "hami.io/bind-phase",
                "allocating",
                "hami.io/vgpu-node",
                NODE));
    a.putAll(extra);
    List<String> names = new java.util.ArrayList<>(initContainers);
    names.addAll(containers);
    List<Map<String, Quantity>> limits = new java.util.ArrayList<>();
    names.forEach(n -> limits.add(new java.util.HashMap<>()));
    if (specRequests) {
      a.forEach(
          (k, v) -> {
            java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("hami\\.io/(.+)-devices-to-allocate").matcher(k);
            if (!m.matches()) return;
            String[] entries = v.split(";", -1);
            for (int i = 0; i < entries.length && i < names.size(); i++) {
              long n =
                  java.util.Arrays.stream(entries[i].split(":")).filter(d -> !d.isEmpty()).count();
              if (n > 0)
                limits.get(i).put("huawei.com/" + m.group(1), new Quantity(Long.toString(n)));
            }
          });
    }
    java.util.function.IntFunction<io.fabric8.kubernetes.api.model.Container> container =
        i ->
            new ContainerBuilder()
                .withName(names.get(i))
                .withImage("busybox")
                .withNewResources()
                .withLimits(limits.get(i))
                .endResources()
                .build();
    Pod p =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("default")
            .withAnnotations(a)
            .addToLabels("hami.io/vgpu-node", a.get("hami.io/vgpu-node"))
            .endMetadata()
            .withNewSpec()
            .withNodeName(NODE)
            .withInitContainers(
                java.util.stream.IntStream.range(0, initContainers.size())
                    .mapToObj(container)
                    .toList())
            .withContainers(
                java.util.stream.IntStream.range(initContainers.size(), names.size())
                    .mapToObj(container)
                    .toList())
            .endSpec()
            .withNewStatus()
            .withPhase("Pending")
            .endStatus()
            .build();
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
