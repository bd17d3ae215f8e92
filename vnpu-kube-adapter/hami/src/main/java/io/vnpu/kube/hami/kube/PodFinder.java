package io.vnpu.kube.hami.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.kube.errors.Causes;
import io.vnpu.kube.hami.codec.DevicesToAllocateCodec;
import io.vnpu.kube.hami.codec.HamiFormatException;
import io.vnpu.kube.hami.codec.HamiNames;
import io.vnpu.kube.hami.codec.NodeLock;
import io.vnpu.kube.hami.codec.PendingContainer;
import io.vnpu.kube.resource.AllocationException;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the pod an Allocate call is for (protocol spec section 3.4), stricter than upstream (bug
 * 9.2): the pod named by the node lock {@code hami.io/mutex.lock} is used only if it is Pending, on
 * this node and still has devices of this chip to allocate; otherwise the fallback takes, among
 * this node's Pending pods with {@code hami.io/bind-time}, {@code hami.io/bind-phase} {@code
 * allocating} or {@code success}, {@code hami.io/vgpu-node} = this node and devices still to
 * allocate, the one with the oldest bind time (then creation time, then name: never API order).
 * Candidates are listed by field {@code spec.nodeName} and by the scheduler's label {@code
 * hami.io/vgpu-node}.
 */
public final class PodFinder {
  private static final Logger LOG = LoggerFactory.getLogger(PodFinder.class);

  private final KubernetesClient client;
  private final String nodeName;
  private final HamiNames names;
  private final DevicesToAllocateCodec codec;
  private final PodSpecCheck spec;

  /**
   * @param codec decodes {@code hami.io/<cw>-devices-to-allocate} of fallback candidates
   * @param spec checks a candidate's next entry against its containers' resource requests
   */
  public PodFinder(
      KubernetesClient client,
      String nodeName,
      HamiNames names,
      DevicesToAllocateCodec codec,
      PodSpecCheck spec) {
    this.client = Objects.requireNonNull(client, "client");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.names = Objects.requireNonNull(names, "names");
    this.codec = Objects.requireNonNull(codec, "codec");
    this.spec = Objects.requireNonNull(spec, "spec");
  }

  /**
   * @param requested number of devices the kubelet asks for in this Allocate
   * @throws AllocationException {@code get pending pod: ...} when the node cannot be read or the
   *     lock value is malformed; {@code no binding pod found on node <node>} when nothing matches
   */
  public FoundPod find(int requested) throws AllocationException {
    Node node;
    try {
      node = client.nodes().withName(nodeName).get();
    } catch (KubernetesClientException e) {
      throw new AllocationException(
          "get pending pod: get node " + nodeName + ": " + Causes.describe(e), e);
    }
    if (node == null)
      throw new AllocationException("get pending pod: node " + nodeName + " not found");
    Optional<NodeLock> lock = Optional.empty();
    String lockValue = annotations(node.getMetadata().getAnnotations()).get(HamiNames.NODE_LOCK);
    if (lockValue != null) {
      try {
        lock = Optional.of(NodeLock.parse(lockValue));
      } catch (HamiFormatException e) {
        throw new AllocationException(
            "get pending pod: node " + nodeName + ": " + Causes.describe(e), e);
      }
      if (lock.get().owner().isPresent()) {
        Optional<Pod> owner = lockOwner(lock.get());
        if (owner.isPresent()) return new FoundPod(owner.get(), lock);
      }
    }
    Pod pod = fallback(requested, lock);
    // a lock may only be released by the pod it names; a legacy lock has no owner to check
    boolean ours =
        lock.isPresent()
            && lock.get()
                .owner()
                .map(
                    o ->
                        o.equals(
                            pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName()))
                .orElse(true);
    return new FoundPod(pod, ours ? lock : Optional.empty());
  }

  private Optional<Pod> lockOwner(NodeLock lock) throws AllocationException {
    Pod pod;
    try {
      pod = client.pods().inNamespace(lock.namespace()).withName(lock.podName()).get();
    } catch (KubernetesClientException e) {
      throw new AllocationException(
          "get pending pod: get pod "
              + lock.owner().orElseThrow()
              + " named by "
              + HamiNames.NODE_LOCK
              + ": "
              + e.getMessage(),
          e);
    }
    if (pod == null) {
      LOG.warn(
          "node lock names pod {} which does not exist; falling back", lock.owner().orElseThrow());
      return Optional.empty();
    }
    Optional<String> why = unsuitable(pod, false);
    if (why.isPresent()) {
      LOG.warn(
          "node lock names pod {} but {}; falling back", lock.owner().orElseThrow(), why.get());
      return Optional.empty();
    }
    return Optional.of(pod);
  }

  /**
   * Pod annotations are written by pod owners too: a decoy pod with the oldest bind time and
   * made-up annotations must not be taken for the pod the kubelet is admitting. A candidate is
   * taken only if its next entry has as many devices as the kubelet asks for, the container of that
   * entry requests exactly that many in its (immutable) spec, and, under a legacy lock, its bind
   * time is not older than the lock (the scheduler locks, then writes the bind time).
   */
  private Pod fallback(int requested, Optional<NodeLock> lock) throws AllocationException {
    List<Pod> pods;
    try {
      pods = NodePods.bound(client, nodeName);
    } catch (KubernetesClientException e) {
      throw new AllocationException(
          "get pending pod: list pods on node " + nodeName + ": " + Causes.describe(e), e);
    }
    List<Pod> candidates =
        pods.stream()
            .filter(p -> unsuitable(p, true).isEmpty())
            .sorted(
                Comparator.comparingLong(PodFinder::bindTime)
                    .thenComparing(
                        p -> Objects.toString(p.getMetadata().getCreationTimestamp(), ""))
                    .thenComparing(
                        p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName()))
            .toList();
    for (Pod p : candidates) {
      Optional<String> why = mismatch(p, requested, lock);
      if (why.isEmpty()) return p;
      LOG.warn(
          "pod {}/{} looks like a pending bind but {}; skipped",
          p.getMetadata().getNamespace(),
          p.getMetadata().getName(),
          why.get());
    }
    throw new AllocationException(
        "no binding pod found on node "
            + nodeName
            + (candidates.isEmpty()
                ? ""
                : " ("
                    + candidates.size()
                    + " candidate(s) did not match their spec, see warnings)"));
  }

  private Optional<String> mismatch(Pod p, int requested, Optional<NodeLock> lock) {
    if (lock.isPresent()
        && lock.get().owner().isEmpty()
        && bindTime(p) < lock.get().lockedAt().toEpochSecond() - LEGACY_LOCK_TOLERANCE_SECONDS) {
      return Optional.of(
          "its "
              + HamiNames.BIND_TIME
              + " "
              + bindTime(p)
              + " is older than the node lock "
              + lock.get().value());
    }
    PendingContainer next;
    try {
      next =
          codec
              .decode(annotations(p.getMetadata().getAnnotations()).get(names.devicesToAllocate()))
              .pop()
              .container();
    } catch (HamiFormatException e) {
      return Optional.of("its " + names.devicesToAllocate() + " is invalid: " + e.getMessage());
    }
    if (next.devices().size() != requested) {
      return Optional.of(
          "its next entry has "
              + next.devices().size()
              + " devices, the kubelet asks for "
              + requested);
    }
    return spec.mismatch(p, next.index(), next.devices().size());
  }

  /** Seconds a legacy lock's time may follow the bind time it belongs to (clock rounding). */
  static final long LEGACY_LOCK_TOLERANCE_SECONDS = 5;

  /** Why the pod cannot be the one being bound, empty when it can. */
  private Optional<String> unsuitable(Pod pod, boolean requireSchedulerAnnotations) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if (!"Pending".equals(phase)) return Optional.of("its phase is " + phase);
    Map<String, String> a = annotations(pod.getMetadata().getAnnotations());
    String specNode = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    if (!nodeName.equals(specNode) && !nodeName.equals(a.get(HamiNames.VGPU_NODE))) {
      return Optional.of("it is not on node " + nodeName);
    }
    String phaseAnno = a.get(HamiNames.BIND_PHASE);
    if ("failed".equals(phaseAnno)) return Optional.of("its bind-phase is failed");
    if (requireSchedulerAnnotations) {
      if (!a.containsKey(HamiNames.BIND_TIME))
        return Optional.of("it has no " + HamiNames.BIND_TIME);
      if (!"allocating".equals(phaseAnno) && !"success".equals(phaseAnno)) {
        return Optional.of("its bind-phase is " + phaseAnno);
      }
      if (!nodeName.equals(a.get(HamiNames.VGPU_NODE)))
        return Optional.of("its vgpu-node is not " + nodeName);
    }
    String pending = a.get(names.devicesToAllocate());
    if (pending == null || pending.chars().allMatch(c -> c == ';')) {
      return Optional.of("it has no " + names.devicesToAllocate() + " left");
    }
    return Optional.empty();
  }

  private static long bindTime(Pod p) {
    String t = annotations(p.getMetadata().getAnnotations()).get(HamiNames.BIND_TIME);
    try {
      return Long.parseLong(t);
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE;
    }
  }

  private static Map<String, String> annotations(Map<String, String> a) {
    return a == null ? Map.of() : a;
  }
}
