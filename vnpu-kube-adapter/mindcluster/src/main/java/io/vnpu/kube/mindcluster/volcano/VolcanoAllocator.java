package io.vnpu.kube.mindcluster.volcano;

import io.fabric8.kubernetes.api.model.Pod;
import io.vnpu.kube.mindcluster.alloc.ContainerAllocator;
import io.vnpu.kube.mindcluster.alloc.ContainerResponses;
import io.vnpu.kube.mindcluster.devices.CardType;
import io.vnpu.kube.mindcluster.devices.ChipState;
import io.vnpu.kube.mindcluster.devices.NodeChips;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Allocate of whole chips with {@code -volcanoType=true} (spec section 3.8): the kubelet's IDs are
 * only a count; the chips are those Volcano wrote on the pod it placed.
 *
 * <p>Per Allocate, under one lock for the whole node: list this node's live pods; take, among the
 * {@link PendingPod}s (pods still waiting for their devices) whose annotation names as many chips
 * as the kubelet allocated and one of whose containers asks for that many in its spec, the one with
 * the smallest {@code predicate-time}; refuse if any of its chips is held by another pod ({@link
 * KubeletDeviceMap#heldByOthers}: what this plugin handed it, else its {@code
 * huawei.com/AscendReal}); claim it with one JSON patch that tests its {@code predicate-time} is
 * unchanged, consumes it and writes {@code huawei.com/AscendReal}, {@code huawei.com/kltDev} and
 * the rank table; then record kubelet ID → real chip.
 *
 * <p>Defined outcomes: two pods pending → the smaller predicate-time now, the other at the next
 * Allocate; the chosen pod deleted (404) or claimed meanwhile (test failed) → the next candidate,
 * at most {@value #ATTEMPTS} rounds; an API error → this Allocate fails naming the call and nothing
 * is consumed or handed out (the kubelet retries). No chip is ever in two pods' answers.
 */
public final class VolcanoAllocator implements ContainerAllocator {
  private static final Logger LOG = LoggerFactory.getLogger(VolcanoAllocator.class);

  /** Rounds of list-and-claim before an Allocate gives up. */
  public static final int ATTEMPTS = 5;

  private final VolcanoPods pods;
  private final Supplier<NodeChips> chips;
  private final ContainerResponses responses;
  private final KubeletDeviceMap kubeletMap;
  private final String hostIp;
  private final Object nodeLock;
  private final java.util.function.Function<String, Map<String, String>> podEnv;

  /**
   * @param nodeLock the lock every Volcano allocator of this node shares (upstream's pod lock)
   * @param podEnv extra env for a container of a pod in the given namespace (slow-node detection),
   *     e.g. {@code ns -> Map.of()}
   */
  public VolcanoAllocator(
      VolcanoPods pods,
      Supplier<NodeChips> chips,
      ContainerResponses responses,
      KubeletDeviceMap kubeletMap,
      String hostIp,
      Object nodeLock,
      java.util.function.Function<String, Map<String, String>> podEnv) {
    this.podEnv = Objects.requireNonNull(podEnv, "podEnv");
    this.pods = Objects.requireNonNull(pods, "pods");
    this.chips = Objects.requireNonNull(chips, "chips");
    this.responses = Objects.requireNonNull(responses, "responses");
    this.kubeletMap = Objects.requireNonNull(kubeletMap, "kubeletMap");
    this.hostIp = Objects.requireNonNull(hostIp, "hostIp");
    this.nodeLock = Objects.requireNonNull(nodeLock, "nodeLock");
  }

  @Override
  public ContainerAllocation allocate(String resourceName, List<String> kubeletIds)
      throws AllocationException {
    if (kubeletIds.isEmpty()) {
      throw new AllocationException("no device IDs in the container request for " + resourceName);
    }
    synchronized (nodeLock) {
      for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
        List<Pod> live = pods.live();
        Optional<PendingPod> next =
            live.stream()
                .map(p -> PendingPod.of(p, resourceName, resourceName))
                .flatMap(Optional::stream)
                .filter(p -> p.devices().size() == kubeletIds.size())
                .filter(p -> p.requestsExactly(resourceName, kubeletIds.size()))
                .min(PendingPod.ORDER);
        if (next.isEmpty()) {
          throw new AllocationException(
              "no pod on this node waits for "
                  + kubeletIds.size()
                  + " chip(s) of "
                  + resourceName
                  + " (annotation "
                  + resourceName
                  + " with "
                  + kubeletIds.size()
                  + " chip(s) and an unconsumed "
                  + VolcanoKeys.PREDICATE_TIME
                  + ")");
        }
        PendingPod pod = next.get();
        NodeChips snapshot = chips.get();
        List<ChipState> real = resolve(pod, snapshot, resourceName);
        checkNotHeld(pod, real, live);
        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put(VolcanoKeys.ASCEND_REAL, String.join(",", pod.devices()));
        annotations.put(VolcanoKeys.KLT_DEV, String.join(",", kubeletIds));
        CardType type = real.get(0).type();
        if (type.rankTable()) {
          annotations.put(
              type == CardType.ASCEND950 ? VolcanoKeys.RANK_TABLE_NPU : VolcanoKeys.RANK_TABLE_910,
              RankTable.of(
                  pod.pod().getMetadata().getName(), pod.uid(), hostIp, real, snapshot.superPod()));
        }
        VolcanoPods.Claim claim = pods.claim(pod.pod(), pod.predicateTime(), annotations);
        if (claim == VolcanoPods.Claim.DONE) {
          kubeletMap.put(pod.uid(), kubeletIds, pod.devices());
          LOG.info(
              "Allocate {} {}: pod {} gets {} (Volcano)",
              resourceName,
              kubeletIds,
              pod.key(),
              pod.devices());
          return responses.chips(
              type,
              real.stream().map(c -> c.npu().phyId()).toList(),
              podEnv.apply(pod.pod().getMetadata().getNamespace()));
        }
        LOG.info(
            "pod {} {} before it was claimed; choosing again",
            pod.key(),
            claim == VolcanoPods.Claim.GONE ? "was deleted" : "changed");
      }
    }
    throw gaveUp(resourceName, kubeletIds, "chosen pod");
  }

  /**
   * What an Allocate that lost its pod {@value #ATTEMPTS} rounds in a row fails with (the one rule
   * for the three Volcano allocators).
   *
   * @param which the pod as the allocator calls it, e.g. {@code chosen pod}
   */
  static AllocationException gaveUp(String resourceName, List<String> kubeletIds, String which) {
    return new AllocationException(
        "Allocate "
            + resourceName
            + " "
            + kubeletIds
            + ": the "
            + which
            + " was deleted or changed in "
            + ATTEMPTS
            + " rounds in a row; the kubelet will retry");
  }

  /**
   * The pod's chips on this node, in annotation order.
   *
   * @throws AllocationException naming the pod, the annotation and the entry that is not a chip of
   *     {@code resourceName} here
   */
  static List<ChipState> resolve(PendingPod pod, NodeChips snapshot, String resourceName)
      throws AllocationException {
    List<ChipState> out = new ArrayList<>();
    for (String name : pod.devices()) {
      Optional<ChipState> c =
          snapshot.byName(name).filter(s -> s.resourceName().equals(resourceName));
      if (c.isEmpty()) {
        throw new AllocationException(
            "pod "
                + pod.key()
                + ": annotation "
                + resourceName
                + " = "
                + String.join(",", pod.devices())
                + " names "
                + name
                + ", which is not a chip of "
                + resourceName
                + " on this node");
      }
      out.add(c.get());
    }
    return out;
  }

  /**
   * Refuses when another pod already holds one of the chips ({@link
   * KubeletDeviceMap#heldByOthers}).
   */
  private void checkNotHeld(PendingPod pod, List<ChipState> real, List<Pod> live)
      throws AllocationException {
    Map<String, String> heldBy = new HashMap<>(kubeletMap.heldByOthers(live, pod.uid()));
    // a pod served here and no longer listed (terminating, or ended since the last refresh)
    // holds what it was handed until the refresh drops it
    for (String n : kubeletMap.realInUse(pod.uid())) {
      heldBy.putIfAbsent(n, "a pod this plugin allocated earlier");
    }
    for (ChipState c : real) {
      String holder = heldBy.get(c.name());
      if (holder != null) {
        throw new AllocationException(
            "pod "
                + pod.key()
                + " was given "
                + c.name()
                + " by Volcano, but "
                + holder
                + " holds it; refusing to hand one chip to two pods");
      }
    }
  }

  /**
   * {@code Ascend310P-1c-400-3_0} → {@code Ascend310P-1c-400-3} (the vgroup suffix of section 3.2).
   */
  static String stripVgroup(String name) {
    int u = name.lastIndexOf('_');
    return u > name.lastIndexOf('-') ? name.substring(0, u) : name;
  }

  /** The comma-split entries of an annotation value. */
  static List<String> split(String value) {
    return Arrays.stream(value.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
  }
}
