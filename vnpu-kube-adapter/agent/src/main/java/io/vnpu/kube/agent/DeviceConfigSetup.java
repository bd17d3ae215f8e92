package io.vnpu.kube.agent;

import io.vnpu.api.config.ChipConfig;
import io.vnpu.api.config.ConfigException;
import io.vnpu.api.config.DeviceConfig;
import io.vnpu.api.config.DeviceConfigLoader;
import io.vnpu.api.config.NodeConfig;
import io.vnpu.api.config.NodeConfigLoader;
import io.vnpu.api.config.NodeSettings;
import io.vnpu.api.health.HealthSource;
import io.vnpu.api.model.Npu;
import io.vnpu.api.spi.DeviceManager;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The setup of an agent driven by HAMi's configuration files ({@code device-config.yaml}, the
 * optional node config): load them, open the driver and its health, pick the chip's {@code
 * vnpus.configs[]} entry, build the backend.
 */
final class DeviceConfigSetup implements AgentSetup {
  private static final Logger log = LoggerFactory.getLogger(DeviceConfigSetup.class);

  private final NodeAgentOptions options;
  private final DeviceManagerOpener opener;
  private final ResourceBackendFactory backends;

  DeviceConfigSetup(
      NodeAgentOptions options, DeviceManagerOpener opener, ResourceBackendFactory backends) {
    this.options = Objects.requireNonNull(options, "options");
    this.opener = Objects.requireNonNull(opener, "opener");
    this.backends = Objects.requireNonNull(backends, "backends");
  }

  @Override
  public OpenedNode open() {
    DeviceManager deviceManager = null;
    HealthSource health = null;
    try {
      log.info(
          "node agent for node {} (--hw_loglevel {} accepted, not used)",
          options.nodeName(),
          options.hwLogLevel());
      DeviceConfig deviceConfig =
          new DeviceConfigLoader(w -> log.warn("{}", w)).load(options.configFile()).value();
      NodeConfig nodeConfig =
          options
              .nodeConfigFile()
              .map(f -> new NodeConfigLoader(w -> log.warn("{}", w)).load(f).value())
              .orElse(NodeConfig.EMPTY);
      Optional<NodeSettings> nodeSettings = nodeConfig.forNode(options.nodeName());
      if (options.nodeConfigFile().isPresent() && nodeSettings.isEmpty()) {
        log.info(
            "{} has no entry for node {}; global settings apply",
            options.nodeConfigFile().get(),
            options.nodeName());
      }
      deviceManager = opener.open(options);
      List<Npu> npus = deviceManager.discover();
      if (npus.isEmpty()) {
        throw new AgentStartupException("the driver reports no NPU on node " + options.nodeName());
      }
      ChipConfig chip = selectChip(deviceConfig, npus.get(0).chipName());
      log.info(
          "{} NPU(s) of chip {} ({}), resource {}",
          npus.size(),
          chip.chipName(),
          chip.commonWord(),
          chip.resourceName());
      health = opener.openHealth(deviceManager, options);
      ResourceBackend backend =
          backends.create(
              new AgentEnvironment(
                  options,
                  deviceConfig,
                  nodeConfig,
                  nodeSettings,
                  chip,
                  npus,
                  deviceManager,
                  health));
      HealthSource h = health;
      DeviceManager d = deviceManager;
      return new OpenedNode(
          backend, chip.commonWord(), new DeviceManagerTelemetry(d, npus, h), () -> close(h, d));
    } catch (ConfigException e) {
      close(health, deviceManager);
      // a user's mistake: the file:line: path = value: reason lines say it all, no stack trace
      throw new AgentStartupException(e.getMessage());
    } catch (RuntimeException e) {
      close(health, deviceManager);
      throw e;
    }
  }

  /** The health monitor (when closeable) before the driver it reads. */
  private static void close(HealthSource health, DeviceManager deviceManager) {
    if (health instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        log.warn("stopping the health monitor failed: {}", e.toString());
      }
    }
    if (deviceManager != null) {
      try {
        deviceManager.close();
      } catch (RuntimeException e) {
        log.warn("closing the device manager failed", e);
      }
    }
  }

  /** The first {@code vnpus.configs[]} entry whose {@code chipName} is the driver's chip name. */
  private ChipConfig selectChip(DeviceConfig config, String chipName) {
    return config
        .forChipName(chipName)
        .orElseThrow(
            () ->
                new AgentStartupException(
                    "can not find vnpu config for chip "
                        + chipName
                        + " in "
                        + options.configFile()
                        + " (vnpus.configs[].chipName: "
                        + config.chips().stream()
                            .map(ChipConfig::chipName)
                            .collect(Collectors.joining(", "))
                        + ")"));
  }
}
