package io.vnpu.kube.testing;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.util.List;

/** ResourceClaims as the scheduler leaves them: allocated, reserved for a pod. */
public final class DraClaims {
  private DraClaims() {}

  /** An allocation result of a device. */
  public static DeviceRequestAllocationResult result(
      String request, String driver, String pool, String device) {
    return new DeviceRequestAllocationResultBuilder()
        .withRequest(request)
        .withDriver(driver)
        .withPool(pool)
        .withDevice(device)
        .build();
  }

  /** An allocated claim with the given results. */
  public static ResourceClaim allocated(
      String namespace, String name, String uid, List<DeviceRequestAllocationResult> results) {
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withUid(uid)
        .endMetadata()
        .withNewSpec()
        .withNewDevices()
        .endDevices()
        .endSpec()
        .withNewStatus()
        .withNewAllocation()
        .withNewDevices()
        .withResults(results)
        .endDevices()
        .endAllocation()
        .addNewReservedFor()
        .withResource("pods")
        .withName("pod-" + name)
        .withUid("pod-uid-" + uid)
        .endReservedFor()
        .endStatus()
        .build();
  }
}
