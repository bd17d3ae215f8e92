package io.vnpu.kube.mindcluster.volcano;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A pod Volcano has placed on this node and no device plugin has taken yet (spec section 3.8 step
 * 3): it requests {@code huawei.com/<type>}, carries the annotation {@code huawei.com/<type>} with
 * its chosen devices and a {@code predicate-time} that is not consumed.
 *
 * <p>The annotations are the pod owner's to edit: a running pod that sets its own {@code
 * predicate-time} back must not be served again (one chip to two pods, or its quotas to another
 * pod). So only a pod still waiting for its devices is a candidate: phase {@code Pending}, no
 * container (init or regular) started or finished, and no {@code huawei.com/AscendReal} yet (the
 * kubelet allocates every container's devices at admission, before any container starts).
 *
 * @param pod the pod as listed
 * @param devices the annotation's entries, in order (chip names, or {@code <phy>-<template>})
 * @param predicateTime the {@code predicate-time} text as found (the claim tests it is unchanged)
 * @param predicateNanos its value, an unsigned 64-bit UnixNano
 */
public record PendingPod(Pod pod, List<String> devices, String predicateTime, long predicateNanos) {
  /** Order of service: smallest predicate-time, then oldest, then namespace/name. */
  public static final Comparator<PendingPod> ORDER =
      Comparator.<PendingPod>comparingLong(p -> p.predicateNanos() ^ Long.MIN_VALUE)
          .thenComparing(p -> Objects.toString(p.pod().getMetadata().getCreationTimestamp(), ""))
          .thenComparing(PendingPod::key);

  public PendingPod {
    Objects.requireNonNull(pod, "pod");
    devices = List.copyOf(devices);
    Objects.requireNonNull(predicateTime, "predicateTime");
  }

  /** {@code namespace/name}. */
  public String key() {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  public String uid() {
    return pod.getMetadata().getUid();
  }

  /**
   * The pod as a pending Volcano pod of {@code resourceName}, if it is one.
   *
   * @param annotationKey the annotation with the chosen devices, e.g. {@code huawei.com/Ascend910}
   */
  public static Optional<PendingPod> of(Pod pod, String resourceName, String annotationKey) {
    if (!VolcanoPods.requests(pod, resourceName) || !waitingForDevices(pod))
      return Optional.empty();
    String chosen = VolcanoPods.annotations(pod).get(annotationKey);
    String pt = VolcanoPods.annotations(pod).get(VolcanoKeys.PREDICATE_TIME);
    if (chosen == null || chosen.isBlank() || pt == null) return Optional.empty();
    String ptText = pt.strip();
    if (ptText.equals(VolcanoKeys.PREDICATE_TIME_CONSUMED)) return Optional.empty();
    long nanos;
    try {
      nanos = Long.parseUnsignedLong(ptText);
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    List<String> devices =
        Arrays.stream(chosen.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
    return Optional.of(new PendingPod(pod, devices, pt, nanos));
  }

  /**
   * Whether the pod can still be in the kubelet's admission: Pending (or no phase yet), no
   * container status that is running or terminated, no {@code huawei.com/AscendReal}.
   */
  public static boolean waitingForDevices(Pod pod) {
    if (VolcanoPods.annotations(pod).containsKey(VolcanoKeys.ASCEND_REAL)) return false;
    io.fabric8.kubernetes.api.model.PodStatus status = pod.getStatus();
    if (status == null) return true;
    if (status.getPhase() != null && !status.getPhase().equals("Pending")) return false;
    return java.util.stream.Stream.of(
            status.getContainerStatuses(),
            status.getInitContainerStatuses(),
            status.getEphemeralContainerStatuses())
        .filter(Objects::nonNull)
        .flatMap(List::stream)
        .noneMatch(
            c ->
                c.getState() != null
                        && (c.getState().getRunning() != null
                            || c.getState().getTerminated() != null)
                    || c.getLastState() != null && c.getLastState().getTerminated() != null);
  }

  /**
   * Whether a container of the pod's (immutable) spec asks for exactly {@code count} of {@code
   * resourceName}.
   */
  public boolean requestsExactly(String resourceName, int count) {
    return VolcanoPods.requestCounts(pod, resourceName).contains((long) count);
  }
}
