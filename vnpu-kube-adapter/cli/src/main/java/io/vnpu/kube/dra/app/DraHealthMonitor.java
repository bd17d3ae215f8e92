package io.vnpu.kube.dra.app;

import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.kube.agent.NodeHealth;
import java.time.Clock;
import java.time.Duration;

/**
 * The chip health the DRA driver turns into device taints and the {@code NodeWatchResources}
 * stream: the node's {@link HealthMonitor} over DCMI, built by {@link NodeHealth} as every root
 * builds it, polled every {@link #PERIOD}, wired as {@code vnpu dra} runs it.
 *
 * <p>Latency budget (issue 15: a fault shows as a taint and on the health stream within one
 * second). On the 910 family DCMI pushes fault events ({@code dcmi_subscribe_fault_event}); an
 * event is graded at once on the monitor thread, so a fault reaches the plugin within milliseconds
 * of the driver's callback. Chips without events (310P) and faults DCMI raises no event for are
 * found by the poll every {@link #PERIOD}: half the budget, leaving the other half for the
 * ResourceSlice write and the stream message.
 */
public final class DraHealthMonitor {
  /** Health poll period: the worst-case detection delay where DCMI pushes no event. */
  public static final Duration PERIOD = Duration.ofMillis(500);

  private DraHealthMonitor() {}

  /**
   * Creates the monitor over {@code m}, subscribes to fault events where the driver has them and
   * starts polling every {@link #PERIOD} on a daemon thread. The caller closes it before {@code m}.
   *
   * @throws io.vnpu.dcmi.DcmiException when the chips cannot be listed
   */
  public static HealthMonitor start(DcmiDeviceManager m, Clock clock) {
    return new NodeHealth(clock).started(m, PERIOD);
  }
}
