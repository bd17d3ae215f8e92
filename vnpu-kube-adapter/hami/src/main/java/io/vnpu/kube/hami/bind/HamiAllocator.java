package io.vnpu.kube.hami.bind;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.api.spi.DeviceException;
import io.vnpu.kube.errors.Causes;
import io.vnpu.kube.hami.alloc.ContainerResponder;
import io.vnpu.kube.hami.alloc.ContainerTarget;
import io.vnpu.kube.hami.alloc.PreparedContainer;
import io.vnpu.kube.hami.codec.ContainerRuntimeInfo;
import io.vnpu.kube.hami.codec.DevicesToAllocateCodec;
import io.vnpu.kube.hami.codec.HamiFormatException;
import io.vnpu.kube.hami.codec.HamiNames;
import io.vnpu.kube.hami.codec.PendingContainer;
import io.vnpu.kube.hami.codec.PodDevices;
import io.vnpu.kube.hami.codec.RuntimeInfo;
import io.vnpu.kube.hami.codec.RuntimeInfoCodec;
import io.vnpu.kube.hami.devices.FakeDeviceId;
import io.vnpu.kube.hami.devices.NodeDevices;
import io.vnpu.kube.hami.kube.FoundPod;
import io.vnpu.kube.hami.kube.PodBindingClient;
import io.vnpu.kube.hami.kube.PodFinder;
import io.vnpu.kube.hami.kube.PodSpecCheck;
import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves Allocate for one container at a time (protocol spec section 3.5): find the pod, pop its
 * next pending container entry from {@code hami.io/<cw>-devices-to-allocate}, check the device
 * count, build the response, write back the remaining entries, and drive the {@link BindState}:
 * {@code success} plus lock release after the pod's last container, {@code failed} plus lock
 * release after any error once the pod is known.
 */
public final class HamiAllocator {
  private static final Logger LOG = LoggerFactory.getLogger(HamiAllocator.class);

  private final PodFinder finder;
  private final PodBindingClient binding;
  private final HamiNames names;
  private final DevicesToAllocateCodec devicesCodec;
  private final RuntimeInfoCodec runtimeInfoCodec = new RuntimeInfoCodec();
  private final Supplier<NodeDevices> devices;
  private final ContainerResponder responder;
  private final PodSpecCheck spec;

  /**
   * @param spec cross-checks the popped entry against the pod's container resources (annotations
   *     are writable by the pod's owner; the spec is immutable)
   */
  public HamiAllocator(
      PodFinder finder,
      PodBindingClient binding,
      HamiNames names,
      DevicesToAllocateCodec devicesCodec,
      Supplier<NodeDevices> devices,
      ContainerResponder responder,
      PodSpecCheck spec) {
    this.finder = Objects.requireNonNull(finder, "finder");
    this.binding = Objects.requireNonNull(binding, "binding");
    this.names = Objects.requireNonNull(names, "names");
    this.devicesCodec = Objects.requireNonNull(devicesCodec, "devicesCodec");
    this.devices = Objects.requireNonNull(devices, "devices");
    this.responder = Objects.requireNonNull(responder, "responder");
    this.spec = Objects.requireNonNull(spec, "spec");
  }

  /**
   * Serves one ContainerAllocateRequest. Calls are serialized: the pod lookup and the
   * read-modify-write of devices-to-allocate must not interleave.
   *
   * @param deviceIds the fake device IDs the kubelet chose; only their number must match the
   *     scheduler's decision (the scheduler, not the kubelet, picks the NPUs)
   * @throws AllocationException naming the pod and the cause
   */
  public synchronized ContainerAllocation allocate(List<String> deviceIds)
      throws AllocationException {
    FoundPod found = finder.find(deviceIds.size());
    Pod pod = found.pod();
    BindState state = BindState.ALLOCATING;
    PreparedContainer prepared = null;
    try {
      Map<String, String> annotations = annotations(pod);
      List<RuntimeInfo> entries =
          runtimeInfoCodec.decodeEntries(
              names.runtimeInfo(), Optional.ofNullable(annotations.get(names.runtimeInfo())));
      String raw = annotations.get(names.devicesToAllocate());
      if (raw == null)
        throw new HamiFormatException(
            "device " + names.commonWord() + " not found in pod annotations");
      PodDevices pending = devicesCodec.decode(raw);
      PodDevices.Popped popped = pending.pop();
      PendingContainer next = popped.container();
      // this container's own entries: two containers on one NPU each have theirs
      Map<String, RuntimeInfo> info = ContainerRuntimeInfo.select(entries, pending, next);
      if (next.devices().size() != deviceIds.size()) {
        throw new AllocationException(
            "device number not matched: annotation has "
                + next.devices().size()
                + ", request has "
                + deviceIds.size());
      }
      for (String id : deviceIds) {
        if (FakeDeviceId.uuidOf(id).isEmpty())
          throw new AllocationException("request has unknown device ID " + id);
      }
      Optional<String> forged = spec.mismatch(pod, next.index(), next.devices().size());
      if (forged.isPresent()) {
        throw new AllocationException(
            "annotation "
                + names.devicesToAllocate()
                + " entry "
                + next.index()
                + " does not match the pod's spec: "
                + forged.get());
      }
      ContainerTarget target =
          new ContainerTarget(
              pod.getMetadata().getNamespace(),
              pod.getMetadata().getName(),
              Objects.toString(pod.getMetadata().getUid(), ""),
              containerName(pod, next.index()),
              annotations);
      prepared = responder.prepare(target, next.devices(), info, devices.get());
      binding.patchAnnotations(
          pod,
          Map.of(names.devicesToAllocate(), DevicesToAllocateCodec.encode(popped.remaining())));
      state = state.containerServed(!popped.remaining().isDone());
      if (state == BindState.SUCCESS) {
        binding.patchAnnotations(pod, Map.of(HamiNames.BIND_PHASE, state.annotationValue()));
        releaseLock(found);
      }
      LOG.info(
          "allocated container {} of pod {}: {} (bind {})",
          target.containerName(),
          found.key(),
          prepared.allocation().envs(),
          state);
      return prepared.allocation();
    } catch (HamiFormatException
        | AllocationException
        | KubernetesClientException
        | DeviceException e) {
      if (prepared != null) prepared.rollback().run();
      state = state.failed();
      fail(found, state);
      String msg =
          e instanceof KubernetesClientException ? "API server: " + e.getMessage() : e.getMessage();
      throw new AllocationException("allocate for pod " + found.key() + ": " + msg, e);
    }
  }

  /**
   * The NPUs HAMi's scheduler chose for the container the kubelet admits next: the UUIDs of the
   * next pending entry of {@code hami.io/<cw>-devices-to-allocate} of the pod {@link #allocate}
   * would serve with {@code size} devices (found the same way), read only. The kubelet asks
   * GetPreferredAllocation right before it allocates that container.
   *
   * @return the UUIDs in entry order; empty when no pod waits for {@code size} devices or the pod
   *     cannot be read (the preference then falls back to topology; Allocate names the cause)
   */
  public synchronized List<String> scheduledUuids(int size) {
    try {
      Pod pod = finder.find(size).pod();
      String raw = annotations(pod).get(names.devicesToAllocate());
      if (raw == null) return List.of();
      return devicesCodec.decode(raw).pop().container().devices().stream()
          .map(io.vnpu.kube.hami.codec.ContainerDevice::uuid)
          .toList();
    } catch (AllocationException | HamiFormatException | KubernetesClientException e) {
      LOG.debug(
          "GetPreferredAllocation: no scheduled NPUs for {} device(s): {}", size, e.getMessage());
      return List.of();
    }
  }

  private void fail(FoundPod found, BindState state) {
    try {
      binding.patchAnnotations(found.pod(), Map.of(HamiNames.BIND_PHASE, state.annotationValue()));
    } catch (KubernetesClientException e) {
      // the lock must still be released (HAMi 61c6cbe/5f0adaa keep it in this case)
      LOG.error(
          "set {}={} on pod {} failed: {}",
          HamiNames.BIND_PHASE,
          state.annotationValue(),
          found.key(),
          e.getMessage());
    }
    try {
      releaseLock(found);
    } catch (KubernetesClientException e) {
      LOG.error("release node lock for pod {} failed: {}", found.key(), Causes.describe(e));
    }
  }

  private void releaseLock(FoundPod found) {
    if (found.lock().isEmpty()) return;
    if (!binding.releaseLock(found.lock().get())) {
      LOG.warn("node lock changed before pod {} released it; left as is", found.key());
    }
  }

  /** Entry {@code index} counts init containers first, then regular containers. */
  static String containerName(Pod pod, int index) {
    return PodSpecCheck.container(pod, index).map(Container::getName).orElse("");
  }

  private static Map<String, String> annotations(Pod pod) {
    Map<String, String> a = pod.getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }
}
