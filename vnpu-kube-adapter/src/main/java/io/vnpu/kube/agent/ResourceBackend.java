package io.vnpu.kube.agent;

import io.vnpu.kube.resource.ResourceManager;

/**
 * The resource side a node agent serves to the kubelet, with whatever runs next to it (for HAMi:
 * the node register loop and the idle vNPU cleanup).
 */
public interface ResourceBackend extends AutoCloseable {

  /** The manager the gRPC device plugin serves. */
  ResourceManager resourceManager();

  /** Starts background work; called once, before the device plugin registers. */
  void start();

  /** Stops background work; called once, after the device plugin stopped. */
  @Override
  void close();
}
