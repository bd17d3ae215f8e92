package io.vnpu.quota.host.process;

import java.util.Set;
import java.util.function.Consumer;

/** Port: delivers the signals this process receives to a handler while a subscription is open. */
public interface SignalSource {

  /**
   * Routes {@code signals} to {@code handler} (instead of the JVM's default action) until the
   * returned subscription is closed; closing restores the previous handlers.
   */
  Subscription subscribe(Set<UnixSignal> signals, Consumer<UnixSignal> handler);

  /** An open subscription; {@link #close()} never throws. */
  interface Subscription extends AutoCloseable {
    @Override
    void close();
  }
}
