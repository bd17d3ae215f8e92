package io.vnpu.kube.agent;

import io.vnpu.api.spi.DeviceManager;

/** Opens the node's {@link DeviceManager} for the agent's settings. */
@FunctionalInterface
public interface DeviceManagerOpener {

  /** @throws RuntimeException with a message naming the library or setting when opening fails */
  DeviceManager open(NodeAgentOptions options);
}
