package io.vnpu.kube.agent;

import io.vnpu.api.spi.DeviceManager;

/** Opens the node's {@link DeviceManager} for the agent's settings. */
@FunctionalInterface
public interface DeviceManagerOpener {

  /**
   * @throws RuntimeException with a message naming the library or setting when opening fails
   */
  DeviceManager open(NodeAgentOptions options);

  /**
   * The node's health source over a device manager this opener opened, started; the agent closes it
   * (when {@link AutoCloseable}) before the device manager. Default: health read live ({@link
   * io.vnpu.api.fault.LiveDeviceHealth}).
   */
  default io.vnpu.api.health.HealthSource openHealth(
      DeviceManager opened, NodeAgentOptions options) {
    return new io.vnpu.api.fault.LiveDeviceHealth(opened);
  }
}
