package io.vnpu.dcmi.fault;

import io.vnpu.api.fault.FaultConfig;
import io.vnpu.api.fault.FaultTracker;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.fault.HotResetter;
import io.vnpu.api.health.ChipUsage;
import io.vnpu.api.health.FaultNotifier;
import io.vnpu.api.health.ManualSeparationStore;
import io.vnpu.dcmi.Dcmi;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Fault handling over {@code libdcmi.so}, wired: a {@link HealthMonitor} fed by a {@link
 * DcmiFaultProbe}, and a {@link HotResetter} over a {@link DcmiChipResetter}.
 *
 * <pre>{@code
 * DcmiHealth health = DcmiHealth.create(dcmi, FaultConfigs.shippedDefault(), store, usage,
 *     notifier, Duration.ofSeconds(5), Clock.systemUTC());
 * health.monitor().start();                 // HealthSource for every adapter
 * }</pre>
 */
public final class DcmiHealth {
  private final DcmiFaultProbe probe;
  private final HealthMonitor monitor;
  private final Dcmi dcmi;

  private DcmiHealth(Dcmi dcmi, DcmiFaultProbe probe, HealthMonitor monitor) {
    this.dcmi = dcmi;
    this.probe = probe;
    this.monitor = monitor;
  }

  /**
   * @param usage whether a workload holds a chip (keeps PreSeparateNPU / FreeRestartNPU chips in
   *     use healthy)
   * @param period health poll period
   * @throws io.vnpu.dcmi.DcmiException when the chips cannot be listed
   */
  public static DcmiHealth create(
      Dcmi dcmi,
      FaultConfig config,
      ManualSeparationStore store,
      ChipUsage usage,
      FaultNotifier notifier,
      Duration period,
      Clock clock) {
    Objects.requireNonNull(dcmi, "dcmi");
    DcmiFaultProbe probe = new DcmiFaultProbe(dcmi, clock);
    HealthMonitor monitor =
        new HealthMonitor(probe, new FaultTracker(config, clock), store, usage, notifier, period);
    return new DcmiHealth(dcmi, probe, monitor);
  }

  /** The node's health source (not started). */
  public HealthMonitor monitor() {
    return monitor;
  }

  /** The probe (chip addresses, subscription). */
  public DcmiFaultProbe probe() {
    return probe;
  }

  /**
   * A hot resetter with MindCluster's bounds (60 s boot wait, 1 s polls, 3 failures).
   *
   * @param pods whether a container holds a chip (kubelet PodResources)
   */
  public HotResetter hotResetter(ChipUsage pods) {
    return HotResetter.withDefaults(monitor, chipResetter(), pods);
  }

  /**
   * The driver's reset functions with MindCluster's grouping (also what {@code -hotReset=2}
   * resets).
   */
  public DcmiChipResetter chipResetter() {
    return new DcmiChipResetter(dcmi, probe);
  }
}
