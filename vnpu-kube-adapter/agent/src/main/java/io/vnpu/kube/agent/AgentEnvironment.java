package io.vnpu.kube.agent;

import io.vnpu.api.config.ChipConfig;
import io.vnpu.api.config.DeviceConfig;
import io.vnpu.api.config.NodeConfig;
import io.vnpu.api.config.NodeSettings;
import io.vnpu.api.fault.LiveDeviceHealth;
import io.vnpu.api.health.HealthSource;
import io.vnpu.api.model.Npu;
import io.vnpu.api.spi.DeviceManager;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the agent knows once configuration and driver are loaded: input of a {@link
 * ResourceBackendFactory}.
 *
 * @param options the agent's settings
 * @param deviceConfig the loaded {@code --config_file}
 * @param nodeConfig the loaded {@code --node_config_file}, {@link NodeConfig#EMPTY} when none
 * @param nodeSettings this node's entry of {@code nodeConfig}, if any
 * @param chip the {@code vnpus.configs[]} entry whose {@code chipName} matches the first NPU
 * @param npus the NPUs the driver reported at startup, ordered by logic ID (not empty)
 * @param deviceManager the open driver port; owned by the agent (closed on stop)
 * @param health the node's one health source every backend reads chip health from; owned by the
 *     agent (started before the backend, closed on stop)
 */
public record AgentEnvironment(
    NodeAgentOptions options,
    DeviceConfig deviceConfig,
    NodeConfig nodeConfig,
    Optional<NodeSettings> nodeSettings,
    ChipConfig chip,
    List<Npu> npus,
    DeviceManager deviceManager,
    HealthSource health) {
  public AgentEnvironment {
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(deviceConfig, "deviceConfig");
    Objects.requireNonNull(nodeConfig, "nodeConfig");
    Objects.requireNonNull(nodeSettings, "nodeSettings");
    Objects.requireNonNull(chip, "chip");
    Objects.requireNonNull(deviceManager, "deviceManager");
    Objects.requireNonNull(health, "health");
    npus = List.copyOf(npus);
  }

  /** With health read live from the device manager ({@link LiveDeviceHealth}). */
  public AgentEnvironment(
      NodeAgentOptions options,
      DeviceConfig deviceConfig,
      NodeConfig nodeConfig,
      Optional<NodeSettings> nodeSettings,
      ChipConfig chip,
      List<Npu> npus,
      DeviceManager deviceManager) {
    this(
        options,
        deviceConfig,
        nodeConfig,
        nodeSettings,
        chip,
        npus,
        deviceManager,
        new LiveDeviceHealth(deviceManager));
  }
}
