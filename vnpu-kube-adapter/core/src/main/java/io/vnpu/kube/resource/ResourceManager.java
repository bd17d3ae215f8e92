package io.vnpu.kube.resource;

import java.util.List;

/**
 * Decides the devices of one extended resource and what each container gets. The gRPC device plugin
 * serves exactly one {@code ResourceManager}. Implementations are thread-safe.
 */
public interface ResourceManager {

  /** Extended resource name registered with the kubelet, e.g. {@code huawei.com/Ascend910B3}. */
  String resourceName();

  /** The full current device list (ListAndWatch always sends the full list). */
  List<PluginDevice> devices();

  /**
   * Registers a callback run after every change of {@link #devices()} (a device added or removed,
   * health changed either way). The callback may run on any thread.
   *
   * @return a handle whose {@code close()} unregisters the callback
   */
  AutoCloseable watch(Runnable onChange);

  /**
   * Serves one ContainerAllocateRequest.
   *
   * @param deviceIds the device IDs the kubelet chose for the container
   * @throws AllocationException when the container cannot be served; the message names the cause
   */
  ContainerAllocation allocate(List<String> deviceIds) throws AllocationException;

  /**
   * GetPreferredAllocation for one container: exactly {@code size} IDs from {@code available},
   * including every ID of {@code mustInclude}.
   */
  List<String> preferredAllocation(List<String> available, List<String> mustInclude, int size);

  /**
   * Whether the kubelet may call GetPreferredAllocation ({@code
   * get_preferred_allocation_available}); when false the device plugin answers such a call with
   * {@code UNIMPLEMENTED} and never calls {@link #preferredAllocation}.
   */
  default boolean preferredAllocationAvailable() {
    return true;
  }

  /** Whether the kubelet must call PreStartContainer before each container starts. */
  default boolean preStartRequired() {
    return false;
  }

  /** PreStartContainer for the devices of one container. */
  default void preStartContainer(List<String> deviceIds) {}
}
