package io.vnpu.kube.hami.kube;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Cross-checks what a pod's annotations ask for against what its spec requests. Pod owners can
 * write their pod's annotations at any time, but container resources are immutable after creation
 * and are what the kubelet calls Allocate for: a container entry of {@code
 * hami.io/<cw>-devices-to-allocate} is believed only if that container requests exactly as many of
 * the chip's resource (e.g. {@code huawei.com/Ascend910B3}) as the entry has devices.
 */
public final class PodSpecCheck {
  private final String resourceName;

  /**
   * @param resourceName the chip's kubelet resource, e.g. {@code huawei.com/Ascend910B3}
   */
  public PodSpecCheck(String resourceName) {
    this.resourceName = Objects.requireNonNull(resourceName, "resourceName");
  }

  /**
   * Why entry {@code index} with {@code devices} devices does not match the pod's spec; empty when
   * the container at that index requests exactly {@code devices} of the resource.
   */
  public Optional<String> mismatch(Pod pod, int index, int devices) {
    Optional<Container> c = container(pod, index);
    if (c.isEmpty()) {
      return Optional.of("its entry " + index + " names no container (the pod has fewer)");
    }
    Optional<Long> requested = requested(c.get().getResources());
    if (requested.isEmpty()) {
      return Optional.of("its container " + c.get().getName() + " requests no " + resourceName);
    }
    if (requested.get() != devices) {
      return Optional.of(
          "its container "
              + c.get().getName()
              + " requests "
              + requested.get()
              + " "
              + resourceName
              + " but the annotation gives it "
              + devices);
    }
    return Optional.empty();
  }

  private Optional<Long> requested(ResourceRequirements r) {
    if (r == null) return Optional.empty();
    // extended resources must have limits (requests, if given, equal them)
    for (Map<String, Quantity> m : java.util.Arrays.asList(r.getLimits(), r.getRequests())) {
      if (m == null || !m.containsKey(resourceName)) continue;
      try {
        return Optional.of(m.get(resourceName).getNumericalAmount().longValueExact());
      } catch (ArithmeticException | IllegalArgumentException e) {
        return Optional.of(-1L);
      }
    }
    return Optional.empty();
  }

  /** Entry {@code index} counts init containers first, then regular containers (HAMi v1.4.0). */
  public static Optional<Container> container(Pod pod, int index) {
    List<Container> init =
        pod.getSpec() == null || pod.getSpec().getInitContainers() == null
            ? List.of()
            : pod.getSpec().getInitContainers();
    List<Container> regular =
        pod.getSpec() == null || pod.getSpec().getContainers() == null
            ? List.of()
            : pod.getSpec().getContainers();
    if (index < 0) return Optional.empty();
    if (index < init.size()) return Optional.of(init.get(index));
    int i = index - init.size();
    return i < regular.size() ? Optional.of(regular.get(i)) : Optional.empty();
  }
}
