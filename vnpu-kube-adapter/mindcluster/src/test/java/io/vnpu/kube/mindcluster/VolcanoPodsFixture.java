package io.vnpu.kube.mindcluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.util.HashMap;
import java.util.Map;

/** Pods as volcano-scheduler leaves them on node-1 before the kubelet calls Allocate. */
final class VolcanoPodsFixture {
  static final String NODE = "node-1";

  private VolcanoPodsFixture() {}

  /** A pod building block: requests {@code count} of {@code resource}, with annotations. */
  static Pod pod(
      String name, String uid, String resource, int count, Map<String, String> annotations) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .withUid(uid)
        .withAnnotations(new HashMap<>(annotations))
        .endMetadata()
        .withNewSpec()
        .withNodeName(NODE)
        .addNewContainer()
        .withName("main")
        .withImage("busybox")
        .withNewResources()
        .addToLimits(resource, new Quantity(Integer.toString(count)))
        .addToRequests(resource, new Quantity(Integer.toString(count)))
        .endResources()
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Pending")
        .endStatus()
        .build();
  }

  /**
   * Stores a pod Volcano placed: {@code huawei.com/Ascend910 = chips}, {@code predicate-time = pt}.
   */
  static Pod volcanoPod(
      KubernetesClient client, String name, String resource, String chips, long predicateTime) {
    return volcanoPod(client, name, resource, chips, predicateTime, chips.split(",").length);
  }

  /**
   * As above, the container requesting {@code count} of the resource (AI Cores for {@code
   * npu-core}).
   */
  static Pod volcanoPod(
      KubernetesClient client,
      String name,
      String resource,
      String chips,
      long predicateTime,
      int count) {
    Pod p =
        pod(
            name,
            "uid-" + name,
            resource,
            count,
            Map.of(resource, chips, "predicate-time", Long.toString(predicateTime)));
    return client.pods().inNamespace("default").resource(p).createOr(NonDeletingOperation::update);
  }

  static Map<String, String> annotations(KubernetesClient client, String name) {
    return client.pods().inNamespace("default").withName(name).get().getMetadata().getAnnotations();
  }
}
