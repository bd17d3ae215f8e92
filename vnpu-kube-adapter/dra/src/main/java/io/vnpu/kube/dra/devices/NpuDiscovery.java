package io.vnpu.kube.dra.devices;

import io.vnpu.api.model.Npu;
import io.vnpu.api.spi.DeviceManager;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fills the {@link NpuInventory} from DCMI and keeps it current.
 *
 * <p>DCMI is often not ready when a node boots ({@code dcmi_init} fails, or the card list is empty
 * for a while): opening or discovering fails, or finds no NPU. Neither is published as the truth;
 * the attempt is retried with exponential backoff ({@code initialBackoff} doubling up to {@code
 * maxBackoff}) and logged, and the inventory is filled when chips appear. Afterwards the NPUs are
 * listed again every {@code rediscover}; a chip that disappears leaves the inventory (the others
 * keep their names, see {@link NpuDeviceNames}); a failed or empty listing keeps the last known set
 * and is retried with backoff.
 */
public final class NpuDiscovery implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(NpuDiscovery.class);

  private final Callable<DeviceManager> opener;
  private final NpuInventory inventory;
  private final Duration initialBackoff;
  private final Duration maxBackoff;
  private final Duration rediscover;
  private final ScheduledExecutorService executor;

  // executor thread only
  private DeviceManager manager;
  private Duration backoff;
  private volatile boolean closed;

  public NpuDiscovery(
      Callable<DeviceManager> opener,
      NpuInventory inventory,
      Duration initialBackoff,
      Duration maxBackoff,
      Duration rediscover) {
    this.opener = Objects.requireNonNull(opener, "opener");
    this.inventory = Objects.requireNonNull(inventory, "inventory");
    this.initialBackoff = initialBackoff;
    this.maxBackoff = maxBackoff;
    this.rediscover = rediscover;
    this.backoff = initialBackoff;
    ScheduledThreadPoolExecutor exec =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "npu-discovery");
              t.setDaemon(true);
              return t;
            });
    exec.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.executor = exec;
  }

  /** Starts discovering in the background. */
  public void start() {
    executor.execute(this::attempt);
  }

  /** The opened device manager, once DCMI was ready. */
  public Optional<DeviceManager> deviceManager() {
    return Optional.ofNullable(manager);
  }

  @Override
  public void close() {
    closed = true;
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    DeviceManager m = manager;
    if (m != null) {
      m.close();
    }
  }

  private void attempt() {
    if (closed) {
      return;
    }
    List<Npu> npus;
    try {
      if (manager == null) {
        manager = opener.call();
      }
      npus = manager.discover();
    } catch (Exception e) {
      retry("DCMI is not ready (" + e.getMessage() + ")");
      return;
    }
    if (npus.isEmpty()) {
      retry("DCMI reports no NPUs");
      return;
    }
    boolean first = !inventory.known();
    int before = inventory.devices().size();
    inventory.update(npus);
    if (first || before != npus.size()) {
      log.info("found {} NPUs: {}", npus.size(), inventory.devices().keySet());
    }
    backoff = initialBackoff;
    schedule(rediscover);
  }

  private void retry(String why) {
    if (inventory.known()) {
      log.warn(
          "{}; keeping the last known {} NPUs, retrying in {} ms",
          why,
          inventory.devices().size(),
          backoff.toMillis());
    } else {
      log.warn("{}; nothing published yet, retrying in {} ms", why, backoff.toMillis());
    }
    schedule(backoff);
    Duration next = backoff.multipliedBy(2);
    backoff = next.compareTo(maxBackoff) > 0 ? maxBackoff : next;
  }

  private void schedule(Duration d) {
    try {
      executor.schedule(this::attempt, d.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closed
    }
  }
}
