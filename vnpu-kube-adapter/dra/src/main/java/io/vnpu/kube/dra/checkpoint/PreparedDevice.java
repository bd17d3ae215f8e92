package io.vnpu.kube.dra.checkpoint;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.vnpu.kube.dra.vnpu.VnpuRecord;
import java.util.List;
import java.util.Objects;

/**
 * One allocated device of a prepared claim, as recorded in the checkpoint: enough to answer a
 * repeated NodePrepareResources identically and to re-create the CDI spec after a reboot without
 * the ResourceClaim.
 *
 * @param requestNames requests it serves, sub-request suffix already removed (proto {@code
 *     Device.request_names})
 * @param poolName allocation result {@code pool}
 * @param deviceName allocation result {@code device}, e.g. {@code npu-3}
 * @param shareId allocation result {@code shareID}, null for an exclusive device
 * @param physicalId the NPU's phy ID ({@code /dev/davinci<phy>})
 * @param adminAccess allocation result {@code adminAccess}
 * @param cdiDeviceIds the fully qualified CDI IDs returned to the kubelet
 * @param vnpu the hard vNPU created for this (device, shareID), null for a whole NPU
 * @param soft the soft share (quota region) of this (device, shareID), null when not soft
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PreparedDevice(
    List<String> requestNames,
    String poolName,
    String deviceName,
    String shareId,
    int physicalId,
    boolean adminAccess,
    List<String> cdiDeviceIds,
    VnpuRecord vnpu,
    io.vnpu.kube.dra.soft.SoftShareRecord soft) {
  public PreparedDevice {
    requestNames = requestNames == null ? List.of() : List.copyOf(requestNames);
    Objects.requireNonNull(poolName, "poolName");
    Objects.requireNonNull(deviceName, "deviceName");
    cdiDeviceIds = cdiDeviceIds == null ? List.of() : List.copyOf(cdiDeviceIds);
  }

  /** A device without soft share. */
  public PreparedDevice(
      List<String> requestNames,
      String poolName,
      String deviceName,
      String shareId,
      int physicalId,
      boolean adminAccess,
      List<String> cdiDeviceIds,
      VnpuRecord vnpu) {
    this(
        requestNames,
        poolName,
        deviceName,
        shareId,
        physicalId,
        adminAccess,
        cdiDeviceIds,
        vnpu,
        null);
  }

  /** A whole-NPU (or share without vNPU) device. */
  public PreparedDevice(
      List<String> requestNames,
      String poolName,
      String deviceName,
      String shareId,
      int physicalId,
      boolean adminAccess,
      List<String> cdiDeviceIds) {
    this(requestNames, poolName, deviceName, shareId, physicalId, adminAccess, cdiDeviceIds, null);
  }

  /** The same device holding {@code next}. */
  public PreparedDevice withVnpu(VnpuRecord next) {
    return new PreparedDevice(
        requestNames,
        poolName,
        deviceName,
        shareId,
        physicalId,
        adminAccess,
        cdiDeviceIds,
        next,
        soft);
  }

  /** The same device holding soft share {@code next}. */
  public PreparedDevice withSoft(io.vnpu.kube.dra.soft.SoftShareRecord next) {
    return new PreparedDevice(
        requestNames,
        poolName,
        deviceName,
        shareId,
        physicalId,
        adminAccess,
        cdiDeviceIds,
        vnpu,
        next);
  }
}
