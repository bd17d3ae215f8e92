package io.vnpu.kube.deviceplugin;

import io.vnpu.api.slice.DeviceNode;
import io.vnpu.kube.deviceplugin.v1beta1.CDIDevice;
import io.vnpu.kube.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vnpu.kube.deviceplugin.v1beta1.Device;
import io.vnpu.kube.deviceplugin.v1beta1.DeviceSpec;
import io.vnpu.kube.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vnpu.kube.deviceplugin.v1beta1.Mount;
import io.vnpu.kube.deviceplugin.v1beta1.NUMANode;
import io.vnpu.kube.deviceplugin.v1beta1.TopologyInfo;
import io.vnpu.kube.resource.ContainerAllocation;
import io.vnpu.kube.resource.PluginDevice;
import java.util.List;

/** Converts the port's records ({@code io.vnpu.kube.resource}) into v1beta1 wire messages. */
final class ProtoMapping {

  /** Health string the kubelet expects for a usable device. */
  static final String HEALTHY = "Healthy";

  /** Health string the kubelet expects for a device it must not hand out. */
  static final String UNHEALTHY = "Unhealthy";

  private ProtoMapping() {}

  static ListAndWatchResponse deviceList(List<PluginDevice> devices) {
    ListAndWatchResponse.Builder b = ListAndWatchResponse.newBuilder();
    devices.forEach(d -> b.addDevices(device(d)));
    return b.build();
  }

  static Device device(PluginDevice d) {
    Device.Builder b =
        Device.newBuilder().setID(d.id()).setHealth(d.healthy() ? HEALTHY : UNHEALTHY);
    if (!d.numaNodes().isEmpty()) {
      TopologyInfo.Builder t = TopologyInfo.newBuilder();
      d.numaNodes().forEach(n -> t.addNodes(NUMANode.newBuilder().setID(n)));
      b.setTopology(t);
    }
    return b.build();
  }

  static ContainerAllocateResponse containerResponse(ContainerAllocation a) {
    ContainerAllocateResponse.Builder b =
        ContainerAllocateResponse.newBuilder()
            .putAllEnvs(a.envs())
            .putAllAnnotations(a.annotations());
    for (io.vnpu.api.slice.Mount m : a.mounts()) {
      b.addMounts(
          Mount.newBuilder()
              .setContainerPath(m.containerPath())
              .setHostPath(m.hostPath())
              .setReadOnly(m.readOnly()));
    }
    for (DeviceNode d : a.devices()) {
      b.addDevices(
          DeviceSpec.newBuilder()
              .setContainerPath(d.containerPath())
              .setHostPath(d.hostPath())
              .setPermissions(d.permissions()));
    }
    a.cdiDevices().forEach(name -> b.addCdiDevices(CDIDevice.newBuilder().setName(name)));
    return b.build();
  }
}
