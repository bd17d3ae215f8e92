package io.vnpu.kube.agent;

/**
 * What a mode of the node agent opens before {@link NodeAgent} serves: the driver, the chips'
 * health, the backend and whatever the protocol runs beside them (HAMi: the device config and node
 * config; MindCluster: the API client, the device-info ConfigMap, fault Events). Everything
 * protocol-neutral (one device plugin per resource manager, request metrics, the registered gauge,
 * {@code /metrics} and the probes, the run loop, the stop order) is {@link NodeAgent}'s.
 */
@FunctionalInterface
public interface AgentSetup {

  /**
   * Opens the mode's parts; the backend is built but not started. On failure everything opened so
   * far is closed again before the exception leaves.
   *
   * @throws AgentStartupException naming the file, flag or device that failed (any other {@link
   *     RuntimeException} is reported with its message)
   */
  OpenedNode open();
}
