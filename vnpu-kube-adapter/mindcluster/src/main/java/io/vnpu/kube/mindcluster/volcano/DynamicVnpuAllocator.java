package io.vnpu.kube.mindcluster.volcano;

import io.fabric8.kubernetes.api.model.Pod;
import io.vnpu.api.model.Vnpu;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.kube.mindcluster.alloc.ContainerAllocator;
import io.vnpu.kube.mindcluster.alloc.ContainerResponses;
import io.vnpu.kube.mindcluster.devices.ChipState;
import io.vnpu.kube.mindcluster.devices.MindClusterResources;
import io.vnpu.kube.mindcluster.devices.NodeChips;
import io.vnpu.kube.mindcluster.devices.VnpuSuffix;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Allocate of {@code huawei.com/npu-core} in dynamic vNPU mode ({@code -presetVirtualDevice=false},
 * spec section 3.10). Volcano writes {@code huawei.com/npu-core = "<phy>-<template>"} (one vNPU) or
 * {@code "<phy>,<phy>"} (whole chips) and a {@code predicate-time} on the pod; the kubelet's {@code
 * npu-core-<k>} IDs only carry the count (the template's AI Cores, or whole chips' AI Cores).
 *
 * <p>Per Allocate, under the node lock: destroy the vNPUs no live pod's {@code
 * huawei.com/AscendReal} names; pick the pending pod as in {@link VolcanoAllocator}; create the
 * vNPU ({@code dcmi_create_vdevice}, the driver picks the ID); claim the pod (consume {@code
 * predicate-time}, write {@code AscendReal} = {@code <Name>-<suffix>-<vdevID>-<phy>} and {@code
 * kltDev}); answer with the vNPU ({@code VIRTUAL}) and the rank env. A failed create is {@code
 * NPUSegmentFailed} and consumes nothing; a failed claim destroys the vNPU again.
 */
public final class DynamicVnpuAllocator implements ContainerAllocator {
  private static final Logger LOG = LoggerFactory.getLogger(DynamicVnpuAllocator.class);

  private final VolcanoPods pods;
  private final Supplier<NodeChips> chips;
  private final DeviceManager deviceManager;
  private final ContainerResponses responses;
  private final KubeletDeviceMap kubeletMap;
  private final Object nodeLock;

  public DynamicVnpuAllocator(
      VolcanoPods pods,
      Supplier<NodeChips> chips,
      DeviceManager deviceManager,
      ContainerResponses responses,
      KubeletDeviceMap kubeletMap,
      Object nodeLock) {
    this.pods = Objects.requireNonNull(pods, "pods");
    this.chips = Objects.requireNonNull(chips, "chips");
    this.deviceManager = Objects.requireNonNull(deviceManager, "deviceManager");
    this.responses = Objects.requireNonNull(responses, "responses");
    this.kubeletMap = Objects.requireNonNull(kubeletMap, "kubeletMap");
    this.nodeLock = Objects.requireNonNull(nodeLock, "nodeLock");
  }

  /** What Volcano asked for: one vNPU of a template on a chip, or whole chips. */
  private record Request(List<ChipState> chips, Optional<String> template) {}

  @Override
  public ContainerAllocation allocate(String resourceName, List<String> kubeletIds)
      throws AllocationException {
    int cores = kubeletIds.size();
    if (cores == 0)
      throw new AllocationException("no device IDs in the container request for " + resourceName);
    synchronized (nodeLock) {
      for (int attempt = 1; attempt <= VolcanoAllocator.ATTEMPTS; attempt++) {
        List<Pod> live = pods.live();
        destroyUnreferenced(live);
        NodeChips snapshot = chips.get();
        List<PendingPod> pending =
            live.stream()
                .map(p -> PendingPod.of(p, resourceName, resourceName))
                .flatMap(Optional::stream)
                .filter(p -> p.requestsExactly(resourceName, cores))
                .sorted(PendingPod.ORDER)
                .toList();
        PendingPod pod = null;
        Request request = null;
        for (PendingPod p : pending) {
          Optional<Request> r = parse(p, snapshot);
          if (r.isPresent() && coresOf(r.get()) == cores) {
            pod = p;
            request = r.get();
            break;
          }
        }
        if (pod == null) {
          throw new AllocationException(
              "no pod on this node waits for "
                  + cores
                  + " AI Core(s) of "
                  + resourceName
                  + " (annotation "
                  + resourceName
                  + " = <phy>-<template> or chips, and an"
                  + " unconsumed "
                  + VolcanoKeys.PREDICATE_TIME
                  + ")");
        }
        checkNotHeld(pod, request, live);
        Optional<ContainerAllocation> done =
            request.template().isPresent()
                ? vnpu(pod, request.chips().get(0), request.template().get(), kubeletIds)
                : wholeChips(pod, request.chips(), kubeletIds);
        if (done.isPresent()) return done.get();
      }
    }
    throw VolcanoAllocator.gaveUp(resourceName, kubeletIds, "chosen pod");
  }

  private Optional<ContainerAllocation> vnpu(
      PendingPod pod, ChipState chip, String template, List<String> kubeletIds)
      throws AllocationException {
    Vnpu v;
    try {
      v = deviceManager.createVnpu(chip.npu().logicId(), template);
    } catch (DeviceException e) {
      throw new AllocationException(
          "NPUSegmentFailed: create vNPU "
              + template
              + " on "
              + chip.name()
              + " for pod "
              + pod.key()
              + ": "
              + e.getMessage(),
          e);
    }
    String suffix = VnpuSuffix.of(template).orElseThrow();
    String name = MindClusterResources.vnpu(chip.type(), suffix, v.vnpuId(), chip.npu().phyId());
    VolcanoPods.Claim claim;
    try {
      claim =
          pods.claim(
              pod.pod(),
              pod.predicateTime(),
              Map.of(
                  VolcanoKeys.ASCEND_REAL,
                  name,
                  VolcanoKeys.KLT_DEV,
                  String.join(",", kubeletIds)));
    } catch (AllocationException | RuntimeException e) {
      destroyQuietly(chip.npu().logicId(), v.vnpuId());
      throw e;
    }
    if (claim != VolcanoPods.Claim.DONE) {
      destroyQuietly(chip.npu().logicId(), v.vnpuId());
      LOG.info("pod {} {} before it was claimed; choosing again", pod.key(), claim);
      return Optional.empty();
    }
    kubeletMap.put(pod.uid(), kubeletIds, kubeletIds.stream().map(k -> name).toList());
    LOG.info(
        "Allocate npu-core x{}: pod {} gets vNPU {} ({})",
        kubeletIds.size(),
        pod.key(),
        name,
        template);
    return Optional.of(responses.vnpu(chip.type(), v.vnpuId(), rankEnv(1)));
  }

  private Optional<ContainerAllocation> wholeChips(
      PendingPod pod, List<ChipState> whole, List<String> kubeletIds) throws AllocationException {
    String names = whole.stream().map(ChipState::name).collect(Collectors.joining(","));
    VolcanoPods.Claim claim =
        pods.claim(
            pod.pod(),
            pod.predicateTime(),
            Map.of(
                VolcanoKeys.ASCEND_REAL, names, VolcanoKeys.KLT_DEV, String.join(",", kubeletIds)));
    if (claim != VolcanoPods.Claim.DONE) {
      LOG.info("pod {} {} before it was claimed; choosing again", pod.key(), claim);
      return Optional.empty();
    }
    List<String> real = new ArrayList<>();
    for (ChipState c : whole) {
      for (int i = 0; i < c.npu().aiCores(); i++) real.add(c.name());
    }
    kubeletMap.put(pod.uid(), kubeletIds, real);
    return Optional.of(
        responses.chips(
            whole.get(0).type(),
            whole.stream().map(c -> c.npu().phyId()).toList(),
            rankEnv(whole.size())));
  }

  /** The rank env of section 3.9 for {@code n} devices in the container. */
  static Map<String, String> rankEnv(int n) {
    String count = Integer.toString(n);
    Map<String, String> env = new LinkedHashMap<>();
    for (String k :
        List.of(
            "MS_LOCAL_WORKER",
            "MS_WORKER_NUM",
            "WORLD_SIZE",
            "LOCAL_WORLD_SIZE",
            "CM_WORKER_SIZE",
            "CM_LOCAL_WORKER")) {
      env.put(k, count);
    }
    env.put(
        "LOCAL_RANK",
        IntStream.range(0, n).mapToObj(Integer::toString).collect(Collectors.joining(",")));
    return env;
  }

  /**
   * {@code 0-vir02} → one vNPU on phy 0; {@code 0,1} → chips 0 and 1; empty when it names nothing
   * here.
   */
  private static Optional<Request> parse(PendingPod pod, NodeChips snapshot) {
    List<String> entries = pod.devices();
    if (entries.size() == 1 && entries.get(0).contains("-")) {
      String e = entries.get(0);
      int dash = e.indexOf('-');
      Optional<ChipState> chip = phy(e.substring(0, dash)).flatMap(snapshot::byPhyId);
      String template = e.substring(dash + 1);
      if (chip.isEmpty() || !chip.get().type().templates().contains(template)) {
        LOG.warn(
            "pod {}: {} names no chip of this node or a template {} does not offer",
            pod.key(),
            e,
            chip.map(c -> c.type().realType()).orElse("it"));
        return Optional.empty();
      }
      return Optional.of(new Request(List.of(chip.get()), Optional.of(template)));
    }
    List<ChipState> out = new ArrayList<>();
    for (String e : entries) {
      Optional<ChipState> chip = phy(e).flatMap(snapshot::byPhyId);
      if (chip.isEmpty()) return Optional.empty();
      out.add(chip.get());
    }
    return Optional.of(new Request(out, Optional.empty()));
  }

  private static Optional<Integer> phy(String text) {
    try {
      return Optional.of(Integer.parseInt(text.strip()));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  private static int coresOf(Request r) {
    return r.template()
        .map(VnpuSuffix::aiCores)
        .orElseGet(() -> r.chips().stream().mapToInt(c -> c.npu().aiCores()).sum());
  }

  /**
   * Refuses whole chips another pod holds (whole or through a vNPU), and vNPUs on a chip another
   * pod holds whole ({@link KubeletDeviceMap#heldByOthers}).
   */
  private void checkNotHeld(PendingPod pod, Request request, List<Pod> live)
      throws AllocationException {
    for (Map.Entry<String, String> held : kubeletMap.heldByOthers(live, pod.uid()).entrySet()) {
      String name = held.getKey();
      for (ChipState c : request.chips()) {
        boolean wholeHeld = name.equals(c.name());
        boolean vnpuOnChip =
            name.startsWith(c.type().deviceName() + "-")
                && name.endsWith("-" + c.npu().phyId())
                && name.split("-").length == 4;
        if (wholeHeld || (request.template().isEmpty() && vnpuOnChip)) {
          throw new AllocationException(
              "pod "
                  + pod.key()
                  + " was given "
                  + c.name()
                  + " by Volcano, but "
                  + held.getValue()
                  + " holds "
                  + name
                  + "; refusing to hand one chip to two pods");
        }
      }
    }
  }

  /**
   * Destroys every vNPU no live pod's {@code AscendReal} names (dynamic mode owns all vNPUs); one
   * that is still open by a container stays and is retried next time.
   *
   * @return the vNPU names destroyed
   */
  public List<String> destroyUnreferenced(List<Pod> live) {
    Set<String> referenced = new HashSet<>();
    for (Pod p : live) {
      String real = VolcanoPods.annotations(p).get(VolcanoKeys.ASCEND_REAL);
      if (real != null)
        VolcanoAllocator.split(real).forEach(n -> referenced.add(VolcanoAllocator.stripVgroup(n)));
    }
    List<String> destroyed = new ArrayList<>();
    for (ChipState c : chips.get().chips()) {
      List<Vnpu> vnpus;
      try {
        vnpus = deviceManager.listVnpus(c.npu().logicId());
      } catch (DeviceException e) {
        continue;
      }
      for (Vnpu v : vnpus) {
        String name =
            VnpuSuffix.of(v.templateName())
                .map(s -> MindClusterResources.vnpu(c.type(), s, v.vnpuId(), c.npu().phyId()))
                .orElse(c.name() + "/vNPU " + v.vnpuId());
        if (referenced.contains(name)) continue;
        try {
          deviceManager.destroyVnpu(c.npu().logicId(), v.vnpuId());
          destroyed.add(name);
          LOG.info("destroyed vNPU {} ({}): no pod references it", name, v.templateName());
        } catch (DeviceException e) {
          LOG.warn(
              "destroying unreferenced vNPU {} failed (retried later): {}", name, e.getMessage());
        }
      }
    }
    return destroyed;
  }

  /** Destroys the unreferenced vNPUs under the node lock (the periodic refresh). */
  public List<String> cleanup() throws AllocationException {
    synchronized (nodeLock) {
      return destroyUnreferenced(pods.live());
    }
  }

  private void destroyQuietly(int logicId, int vnpuId) {
    try {
      deviceManager.destroyVnpu(logicId, vnpuId);
    } catch (DeviceException e) {
      LOG.warn(
          "rollback: destroying vNPU {} on logic ID {} failed (the cleanup retries): {}",
          vnpuId,
          logicId,
          e.getMessage());
    }
  }
}
