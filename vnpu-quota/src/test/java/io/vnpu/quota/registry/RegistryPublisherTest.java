package io.vnpu.quota.registry;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** How {@link RegistryPublisher#close()} ends a round in progress. */
class RegistryPublisherTest {

  /** A round that signals when it starts, then takes {@code millis}, noting an interrupt. */
  private static final class SlowRound implements Supplier<Collection<ComputeRegistry>> {
    final CountDownLatch started = new CountDownLatch(1);
    final AtomicBoolean interrupted = new AtomicBoolean();
    final AtomicBoolean finished = new AtomicBoolean();
    private final long millis;

    SlowRound(long millis) {
      this.millis = millis;
    }

    @Override
    public Collection<ComputeRegistry> get() {
      started.countDown();
      try {
        Thread.sleep(millis);
        finished.set(true);
      } catch (InterruptedException e) {
        interrupted.set(true);
      }
      return List.of();
    }
  }

  /**
   * An interrupt inside a registry's FileChannel I/O closes the channel
   * (ClosedByInterruptException) and was logged as a publish failure at every {@code vnpu run}
   * exit: close lets a short round end.
   */
  @Test
  void closeLetsAShortRoundInProgressFinishUninterrupted() throws Exception {
    SlowRound round = new SlowRound(200);
    RegistryPublisher publisher = new RegistryPublisher(round, 10, 100);
    assertThat(round.started.await(30, TimeUnit.SECONDS)).isTrue();
    publisher.close();
    assertThat(round.interrupted).isFalse();
    assertThat(round.finished).isTrue();
  }

  @Test
  void closeIsBoundedWhenARoundHangs() throws Exception {
    SlowRound round = new SlowRound(60_000);
    RegistryPublisher publisher = new RegistryPublisher(round, 10, 100);
    assertThat(round.started.await(30, TimeUnit.SECONDS)).isTrue();
    long t0 = System.nanoTime();
    publisher.close();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(10_000);
    assertThat(round.finished).isFalse();
  }
}
