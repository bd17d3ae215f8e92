package io.vnpu.kube.mindcluster.alloc;

import io.vnpu.kube.resource.AllocationException;
import io.vnpu.kube.resource.ContainerAllocation;
import java.util.List;

/** Serves one ContainerAllocateRequest of one MindCluster resource. */
@FunctionalInterface
public interface ContainerAllocator {

  /**
   * @param resourceName the resource the kubelet allocated from, e.g. {@code huawei.com/Ascend910}
   * @param deviceIds the kubelet's device IDs for the container
   * @throws AllocationException naming the device, pod or node the container cannot be served for
   */
  ContainerAllocation allocate(String resourceName, List<String> deviceIds)
      throws AllocationException;
}
