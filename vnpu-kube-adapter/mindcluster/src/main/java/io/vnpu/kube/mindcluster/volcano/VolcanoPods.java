package io.vnpu.kube.mindcluster.volcano;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.vnpu.kube.errors.Causes;
import io.vnpu.kube.json.JsonMappers;
import io.vnpu.kube.resource.AllocationException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The API-server side of the Volcano handshake: this node's live pods, and the claim of one pod
 * (its {@code predicate-time} consumed and the allocation annotations written in one JSON patch
 * that first tests the {@code predicate-time} it was chosen with, so no two claims of one pod both
 * succeed).
 */
public final class VolcanoPods {
  private static final JsonMapper JSON = JsonMappers.compact();

  /** What a claim found. */
  public enum Claim {
    /** The pod is ours: predicate-time consumed, annotations written. */
    DONE,
    /** The pod was deleted since it was listed. */
    GONE,
    /** Its predicate-time changed since it was listed (another claim, or Volcano re-predicated). */
    CHANGED
  }

  /**
   * Lists the pods that may be bound to this node (a superset is fine: every pod is checked for
   * {@code spec.nodeName} again).
   */
  @FunctionalInterface
  public interface PodLister {
    /**
     * @throws KubernetesClientException when the API server fails
     */
    List<Pod> list();

    /** The API server's field selector {@code spec.nodeName=<node>} over all namespaces. */
    static PodLister byFieldSelector(KubernetesClient client, String nodeName) {
      return () ->
          client.pods().inAnyNamespace().withField("spec.nodeName", nodeName).list().getItems();
    }
  }

  private final KubernetesClient client;
  private final String nodeName;
  private final PodLister lister;

  /** Lists this node's pods with the field selector {@code spec.nodeName}. */
  public VolcanoPods(KubernetesClient client, String nodeName) {
    this(client, nodeName, PodLister.byFieldSelector(client, nodeName));
  }

  /**
   * @param lister how this node's pods are listed (the fabric8 mock server of tests does not
   *     implement field selectors on {@code spec})
   */
  public VolcanoPods(KubernetesClient client, String nodeName, PodLister lister) {
    this.client = Objects.requireNonNull(client, "client");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.lister = Objects.requireNonNull(lister, "lister");
  }

  /**
   * Pods bound to this node that are not terminating, not finished and not refused at admission.
   *
   * @throws AllocationException naming the list call when the API server fails
   */
  public List<Pod> live() throws AllocationException {
    List<Pod> all;
    try {
      all = lister.list();
    } catch (KubernetesClientException e) {
      throw new AllocationException("list pods on node " + nodeName + ": " + Causes.describe(e), e);
    }
    return all.stream().filter(this::live).toList();
  }

  private boolean live(Pod p) {
    if (p.getSpec() == null || !nodeName.equals(p.getSpec().getNodeName())) return false;
    if (p.getMetadata().getDeletionTimestamp() != null) return false;
    String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
    if ("Succeeded".equals(phase) || "Failed".equals(phase)) return false;
    String reason = p.getStatus() == null ? null : p.getStatus().getReason();
    return !"UnexpectedAdmissionError".equals(reason);
  }

  /**
   * {@code status.phase} ({@code "Unknown"} when unset) by UID of every pod bound to this node,
   * terminating and finished ones included: what {@link
   * io.vnpu.kube.softslice.SoftSlices#removeFinished} needs to keep the directories of pods whose
   * containers may still run.
   *
   * @throws AllocationException naming the list call when the API server fails
   */
  public Map<String, String> phasesByUid() throws AllocationException {
    List<Pod> all;
    try {
      all = lister.list();
    } catch (KubernetesClientException e) {
      throw new AllocationException("list pods on node " + nodeName + ": " + Causes.describe(e), e);
    }
    Map<String, String> out = new java.util.HashMap<>();
    for (Pod p : all) {
      if (p.getSpec() == null
          || !nodeName.equals(p.getSpec().getNodeName())
          || p.getMetadata().getUid() == null) continue;
      String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
      out.put(p.getMetadata().getUid(), phase == null ? "Unknown" : phase);
    }
    return out;
  }

  /** UIDs of this node's live pods. */
  public Set<String> liveUids() throws AllocationException {
    return live().stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet());
  }

  /** Whether any container of the pod requests or limits {@code resourceName}. */
  public static boolean requests(Pod pod, String resourceName) {
    if (pod.getSpec() == null) return false;
    Stream<Container> containers =
        Stream.concat(
            pod.getSpec().getContainers() == null
                ? Stream.empty()
                : pod.getSpec().getContainers().stream(),
            pod.getSpec().getInitContainers() == null
                ? Stream.empty()
                : pod.getSpec().getInitContainers().stream());
    return containers
        .map(Container::getResources)
        .filter(Objects::nonNull)
        .anyMatch(r -> has(r, resourceName));
  }

  /**
   * What each container (init containers first) asks of {@code resourceName}: its limit, else its
   * request; containers that ask nothing are left out.
   */
  public static List<Long> requestCounts(Pod pod, String resourceName) {
    if (pod.getSpec() == null) return List.of();
    return Stream.concat(
            pod.getSpec().getInitContainers() == null
                ? Stream.empty()
                : pod.getSpec().getInitContainers().stream(),
            pod.getSpec().getContainers() == null
                ? Stream.empty()
                : pod.getSpec().getContainers().stream())
        .map(Container::getResources)
        .filter(Objects::nonNull)
        .map(
            r -> {
              Quantity q =
                  r.getLimits() != null && r.getLimits().containsKey(resourceName)
                      ? r.getLimits().get(resourceName)
                      : r.getRequests() != null ? r.getRequests().get(resourceName) : null;
              if (q == null) return null;
              try {
                return Quantity.getAmountInBytes(q).longValueExact();
              } catch (ArithmeticException e) {
                return -1L;
              }
            })
        .filter(Objects::nonNull)
        .toList();
  }

  private static boolean has(ResourceRequirements r, String name) {
    Map<String, Quantity> limits = r.getLimits();
    Map<String, Quantity> requests = r.getRequests();
    return (limits != null && limits.containsKey(name))
        || (requests != null && requests.containsKey(name));
  }

  /** The pod's annotations, never null. */
  public static Map<String, String> annotations(Pod pod) {
    Map<String, String> a = pod.getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }

  /**
   * Consumes the pod's {@code predicate-time} (only if it is still {@code expectedPredicateTime})
   * and sets {@code annotations}, in one JSON patch.
   *
   * @throws AllocationException naming the pod when the API server fails otherwise
   */
  public Claim claim(Pod pod, String expectedPredicateTime, Map<String, String> annotations)
      throws AllocationException {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    List<Map<String, Object>> ops = new ArrayList<>();
    ops.add(op("test", VolcanoKeys.PREDICATE_TIME, expectedPredicateTime));
    ops.add(op("replace", VolcanoKeys.PREDICATE_TIME, VolcanoKeys.PREDICATE_TIME_CONSUMED));
    for (Map.Entry<String, String> e : annotations.entrySet()) {
      ops.add(op("add", e.getKey(), e.getValue()));
    }
    String patch;
    try {
      patch = JSON.writeValueAsString(ops);
    } catch (JacksonException e) {
      throw new IllegalStateException("patch for pod " + ns + "/" + name + " not serialisable", e);
    }
    try {
      client.pods().inNamespace(ns).withName(name).patch(PatchContext.of(PatchType.JSON), patch);
      return Claim.DONE;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) return Claim.GONE;
      if (e.getCode() == 409 || e.getCode() == 422) return Claim.CHANGED;
      throw new AllocationException(
          "patch pod "
              + ns
              + "/"
              + name
              + " (consume "
              + VolcanoKeys.PREDICATE_TIME
              + "): "
              + e.getMessage(),
          e);
    }
  }

  /** Sets annotations on a pod (no precondition). */
  public void annotate(Pod pod, Map<String, String> annotations) throws AllocationException {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    List<Map<String, Object>> ops = new ArrayList<>();
    if (pod.getMetadata().getAnnotations() == null) {
      Map<String, Object> init = new LinkedHashMap<>();
      init.put("op", "add");
      init.put("path", "/metadata/annotations");
      init.put("value", Map.of());
      ops.add(init);
    }
    annotations.forEach((k, v) -> ops.add(op("add", k, v)));
    try {
      client
          .pods()
          .inNamespace(ns)
          .withName(name)
          .patch(PatchContext.of(PatchType.JSON), JSON.writeValueAsString(ops));
    } catch (JacksonException e) {
      throw new IllegalStateException("patch for pod " + ns + "/" + name + " not serialisable", e);
    } catch (KubernetesClientException e) {
      throw new AllocationException("patch pod " + ns + "/" + name + ": " + Causes.describe(e), e);
    }
  }

  private static Map<String, Object> op(String op, String annotation, String value) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("op", op);
    // JSON pointer: '~' and '/' in the key are escaped as ~0 and ~1
    m.put("path", "/metadata/annotations/" + annotation.replace("~", "~0").replace("/", "~1"));
    m.put("value", value);
    return m;
  }
}
