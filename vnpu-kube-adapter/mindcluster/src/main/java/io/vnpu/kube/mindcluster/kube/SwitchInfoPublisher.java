package io.vnpu.kube.mindcluster.kube;

import io.vnpu.api.health.SwitchFault;
import io.vnpu.api.health.SwitchFaultProbe;
import io.vnpu.kube.errors.Causes;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the node's switch faults and writes {@code SwitchInfoCfg} into the device-info ConfigMap
 * (A3 servers with {@code liblingqu-dcmi.so}); call {@link #publishOnce()} every {@code
 * -listWatchPeriod}. A driver or API-server failure is logged and retried next round.
 */
public final class SwitchInfoPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(SwitchInfoPublisher.class);

  private final SwitchFaultProbe probe;
  private final SwitchFaultLevels levels;
  private final DeviceInfoConfigMap configMap;
  private final Clock clock;

  public SwitchInfoPublisher(
      SwitchFaultProbe probe,
      SwitchFaultLevels levels,
      DeviceInfoConfigMap configMap,
      Clock clock) {
    this.probe = Objects.requireNonNull(probe, "probe");
    this.levels = Objects.requireNonNull(levels, "levels");
    this.configMap = Objects.requireNonNull(configMap, "configMap");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** One round; returns whether the ConfigMap was written. */
  public boolean publishOnce() {
    List<SwitchFault> faults;
    try {
      faults = probe.read();
    } catch (RuntimeException e) {
      LOG.warn("switch faults not read: {}", Causes.describe(e));
      return false;
    }
    String keys =
        faults.stream()
            .filter(SwitchFault::occurred)
            .map(f -> f.key() + "=" + levels.levelOf(f).term())
            .sorted()
            .distinct()
            .collect(Collectors.joining(","));
    try {
      return configMap.publishSwitchInfo(SwitchInfo.cfg(faults, levels, clock.instant()), keys);
    } catch (RuntimeException e) {
      LOG.warn("{} not written: {}", DeviceInfoConfigMap.SWITCH_INFO_CFG, Causes.describe(e));
      return false;
    }
  }
}
