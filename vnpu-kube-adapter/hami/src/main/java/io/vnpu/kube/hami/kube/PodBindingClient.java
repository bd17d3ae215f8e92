package io.vnpu.kube.hami.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.vnpu.kube.hami.codec.HamiNames;
import io.vnpu.kube.hami.codec.NodeLock;
import io.vnpu.kube.json.JsonMappers;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The writes of a bind: pod annotation patches and the node-lock release. */
public final class PodBindingClient {
  private final KubernetesClient client;
  private final String nodeName;
  private final JsonMapper mapper = JsonMappers.compact();

  public PodBindingClient(KubernetesClient client, String nodeName) {
    this.client = Objects.requireNonNull(client, "client");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
  }

  /**
   * Merge-patches pod annotations.
   *
   * @throws KubernetesClientException when the API server rejects the patch
   */
  public void patchAnnotations(Pod pod, Map<String, String> annotations) {
    ObjectNode patch = mapper.createObjectNode();
    ObjectNode a = patch.putObject("metadata").putObject("annotations");
    annotations.forEach(a::put);
    client
        .pods()
        .inNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName())
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
  }

  /**
   * Removes {@code hami.io/mutex.lock} from the node if it still holds exactly {@code lock}. A JSON
   * patch {@code test} + {@code remove} makes the owner check and the removal one atomic step
   * (upstream uses GET + merge patch with resourceVersion).
   *
   * @return true when removed, false when the node holds another lock value by now
   * @throws KubernetesClientException when the API server fails otherwise
   */
  public boolean releaseLock(String lockValue) {
    String path =
        "/metadata/annotations/" + HamiNames.NODE_LOCK.replace("~", "~0").replace("/", "~1");
    ArrayNode ops = mapper.createArrayNode();
    ops.addObject().put("op", "test").put("path", path).put("value", lockValue);
    ops.addObject().put("op", "remove").put("path", path);
    try {
      client.nodes().withName(nodeName).patch(PatchContext.of(PatchType.JSON), ops.toString());
      return true;
    } catch (KubernetesClientException e) {
      // 422: the test op failed, the lock changed hands (or was already released)
      if (e.getCode() == 422) return false;
      throw e;
    }
  }

  /** Convenience for {@link #releaseLock(String)}. */
  public boolean releaseLock(NodeLock lock) {
    return releaseLock(lock.value());
  }
}
