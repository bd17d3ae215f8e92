package io.vnpu.kube.agent;

import io.vnpu.api.fault.FaultConfigs;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.fault.RateLimitedNotifier;
import io.vnpu.api.health.ChipUsage;
import io.vnpu.api.health.ManualSeparationStore;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.fault.DcmiHealth;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place a node's chip health over DCMI is built, for every composition root (the HAMi
 * agent, the MindCluster agent, the DRA driver): fault levels from the shipped {@code
 * faultCode.json} ({@link FaultConfigs#shippedDefault()}), escalation, event subscription where the
 * driver has it, and fault warnings logged at most 10 a minute. A root chooses only what differs by
 * protocol: where manual separations are kept, which chips count as in use, and how often the chips
 * are polled.
 */
public final class NodeHealth {
  /** The HAMi agent's poll period (MindCluster's {@code -listWatchPeriod} default). */
  public static final Duration AGENT_PERIOD = Duration.ofSeconds(5);

  private static final Logger LOG = LoggerFactory.getLogger(NodeHealth.class);

  private final Clock clock;

  public NodeHealth(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * The health of {@code driver}'s chips, not started: the caller starts {@link
   * DcmiHealth#monitor()} once whatever listens to it is wired, and closes it before the driver.
   *
   * @param separations where {@code ManuallySeparateNPU} is kept (MindCluster: the device-info
   *     ConfigMap)
   * @param usage which chips are in use (a fault on one is not escalated to a reset while it is)
   * @param period poll period: the worst-case detection delay where DCMI pushes no event
   */
  public DcmiHealth create(
      DcmiDeviceManager driver,
      ManualSeparationStore separations,
      ChipUsage usage,
      Duration period) {
    return DcmiHealth.create(
        driver.dcmi(),
        FaultConfigs.shippedDefault(),
        separations,
        usage,
        RateLimitedNotifier.perMinute(
            (logic, reason, message) -> LOG.warn("{}: {}", reason, message), clock),
        period,
        clock);
  }

  /**
   * A started monitor with separations in memory and no chip counted as in use (the HAMi agent, the
   * DRA driver); the caller closes it before the driver.
   *
   * @throws io.vnpu.dcmi.DcmiException when the chips cannot be listed
   */
  public HealthMonitor started(DcmiDeviceManager driver, Duration period) {
    HealthMonitor monitor =
        create(driver, ManualSeparationStore.inMemory(), ChipUsage.NONE, period).monitor();
    monitor.start();
    return monitor;
  }
}
