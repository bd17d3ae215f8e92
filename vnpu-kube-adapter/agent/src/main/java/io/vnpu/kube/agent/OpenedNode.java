package io.vnpu.kube.agent;

import java.util.Objects;

/**
 * What an {@link AgentSetup} opened, for {@link NodeAgent} to serve and to close.
 *
 * @param backend the resource managers to serve, started and closed by the agent
 * @param chipWord the {@code chip} label of the NPU series ({@code Ascend910B3}, {@code 910B})
 * @param telemetry the chips' readings for {@code /metrics}
 * @param resources the rest (health monitor, API client, driver, in the order they must close),
 *     closed after the backend
 */
public record OpenedNode(
    ResourceBackend backend,
    String chipWord,
    DeviceManagerTelemetry telemetry,
    AutoCloseable resources) {
  public OpenedNode {
    Objects.requireNonNull(backend, "backend");
    Objects.requireNonNull(chipWord, "chipWord");
    Objects.requireNonNull(telemetry, "telemetry");
    Objects.requireNonNull(resources, "resources");
  }
}
