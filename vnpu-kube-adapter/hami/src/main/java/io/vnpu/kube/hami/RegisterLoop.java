package io.vnpu.kube.hami;

import io.vnpu.api.spi.DeviceException;
import io.vnpu.kube.errors.Causes;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.hami.devices.DeviceInventory;
import io.vnpu.kube.hami.devices.NodeDevices;
import io.vnpu.kube.hami.kube.NodeRegistrar;
import io.vnpu.kube.hami.kube.RegisterException;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The health-and-register loop (protocol spec sections 1.5 and 2.1): each round re-reads every
 * NPU's health (listeners, i.e. ListAndWatch, hear about any change in either direction) and
 * publishes the node annotations; the next round runs after {@code period} (upstream 30 s), or
 * after {@code retryDelay} (5 s) when the round failed, whatever it threw ({@link PeriodicTask}).
 */
public final class RegisterLoop implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RegisterLoop.class);

  private final DeviceInventory inventory;
  private final NodeRegistrar registrar;
  private final HamiChipSettings chip;
  private final HamiNodeSettings node;
  private final Scheduler scheduler;
  private final Duration period;
  private final Duration retryDelay;
  private final PeriodicTask task;

  public RegisterLoop(
      DeviceInventory inventory,
      NodeRegistrar registrar,
      HamiChipSettings chip,
      HamiNodeSettings node,
      Scheduler scheduler,
      Duration period,
      Duration retryDelay) {
    this.inventory = Objects.requireNonNull(inventory, "inventory");
    this.registrar = Objects.requireNonNull(registrar, "registrar");
    this.chip = Objects.requireNonNull(chip, "chip");
    this.node = Objects.requireNonNull(node, "node");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.period = Objects.requireNonNull(period, "period");
    this.retryDelay = Objects.requireNonNull(retryDelay, "retryDelay");
    this.task = new PeriodicTask("register", scheduler, this::runOnce, retryDelay);
  }

  /** Schedules the first round after {@code initialDelay} (upstream 1 s). */
  public void start(Duration initialDelay) {
    task.start(initialDelay);
  }

  /**
   * One round.
   *
   * @return the delay before the next round: {@code period} on success, {@code retryDelay} on error
   */
  public Duration runOnce() {
    NodeDevices devices;
    try {
      devices = inventory.refresh();
    } catch (DeviceException e) {
      LOG.error("reading NPUs failed, keeping the last list: {}", e.getMessage());
      devices = inventory.current();
      publish(devices);
      return retryDelay;
    } catch (RuntimeException e) {
      // a bug or an absurd driver value (e.g. CPU list 0-2147483647): the node must stay
      // registered with the last list, or HAMi drops it after a minute
      LOG.warn("reading NPUs failed unexpectedly, keeping the last list: {}", e.toString());
      devices = inventory.current();
      publish(devices);
      return retryDelay;
    }
    return publish(devices) ? period : retryDelay;
  }

  private boolean publish(NodeDevices devices) {
    try {
      registrar.register(RegisterPayload.of(devices, chip, node), node.hamiVnpuCore());
      return true;
    } catch (RegisterException e) {
      LOG.error("register node annotations failed: {}", Causes.describe(e));
      return false;
    } catch (RuntimeException e) {
      // any other failure must not end the loop; the scheduler would drop the node in 60 s
      LOG.warn("register node annotations failed: {}", Causes.describe(e));
      return false;
    }
  }

  @Override
  public void close() {
    task.close();
  }
}
