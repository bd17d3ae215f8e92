package io.vnpu.kube.hami.bind;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vnpu.kube.hami.codec.HamiFormatException;
import io.vnpu.kube.hami.codec.HamiNames;
import io.vnpu.kube.hami.codec.NodeLock;
import io.vnpu.kube.hami.kube.PodBindingClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends binds that can no longer finish: a pod whose {@code hami.io/bind-phase} is still {@code
 * allocating} but which is terminal ({@code Succeeded}, {@code Failed}, or being deleted) gets
 * {@code failed}, and a node lock {@code hami.io/mutex.lock} naming a pod that is terminal or gone
 * is released. Without this a multi-container pod the kubelet rejected after its first Allocate
 * kept the node locked until the scheduler's lock expiry. A legacy lock (no owner) is left to that
 * expiry: nothing tells whose it is.
 */
public final class StaleBindReaper {
  private static final Logger LOG = LoggerFactory.getLogger(StaleBindReaper.class);

  private final KubernetesClient client;
  private final PodBindingClient binding;
  private final String nodeName;

  public StaleBindReaper(KubernetesClient client, PodBindingClient binding, String nodeName) {
    this.client = Objects.requireNonNull(client, "client");
    this.binding = Objects.requireNonNull(binding, "binding");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
  }

  /**
   * One pass.
   *
   * @param podsOnNode the pods bound to this node, as just listed
   * @return what was done, one line each (for logs and tests)
   * @throws io.fabric8.kubernetes.client.KubernetesClientException when the API server fails
   */
  public List<String> runOnce(List<Pod> podsOnNode) {
    List<String> done = new ArrayList<>();
    for (Pod p : podsOnNode) {
      if (ended(p) && "allocating".equals(annotations(p).get(HamiNames.BIND_PHASE))) {
        binding.patchAnnotations(
            p, Map.of(HamiNames.BIND_PHASE, BindState.FAILED.annotationValue()));
        done.add("bind-phase failed: " + key(p));
      }
    }
    releaseLockOfEnded(done);
    done.forEach(d -> LOG.info("stale bind: {}", d));
    return done;
  }

  private void releaseLockOfEnded(List<String> done) {
    Node node = client.nodes().withName(nodeName).get();
    String value =
        node == null
            ? null
            : annotations(node.getMetadata().getAnnotations()).get(HamiNames.NODE_LOCK);
    if (value == null) return;
    NodeLock lock;
    try {
      lock = NodeLock.parse(value);
    } catch (HamiFormatException e) {
      return; // the allocator reports a malformed lock where it matters
    }
    if (lock.owner().isEmpty()) return;
    Pod owner = client.pods().inNamespace(lock.namespace()).withName(lock.podName()).get();
    if (owner != null && !ended(owner)) return;
    String failed = owner == null ? "" : "bind-phase failed: " + key(owner);
    if (owner != null
        && "allocating".equals(annotations(owner).get(HamiNames.BIND_PHASE))
        && !done.contains(failed)) {
      binding.patchAnnotations(
          owner, Map.of(HamiNames.BIND_PHASE, BindState.FAILED.annotationValue()));
      done.add(failed);
    }
    if (binding.releaseLock(lock)) {
      done.add(
          "released node lock of "
              + lock.owner().get()
              + (owner == null ? " (pod gone)" : " (pod ended)"));
    }
  }

  /** Terminal, or being deleted: the kubelet will not start its containers any more. */
  static boolean ended(Pod p) {
    return io.vnpu.kube.hami.kube.NodePods.finished(p)
        || p.getMetadata().getDeletionTimestamp() != null;
  }

  private static String key(Pod p) {
    return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
  }

  private static Map<String, String> annotations(Pod p) {
    return annotations(p.getMetadata().getAnnotations());
  }

  private static Map<String, String> annotations(Map<String, String> a) {
    return a == null ? Map.of() : a;
  }
}
