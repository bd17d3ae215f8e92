package io.vnpu.quota.host.process;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@link SignalSource} over {@code sun.misc.Signal} (module jdk.unsupported): the only way a JVM
 * can catch SIGINT, SIGTERM and SIGHUP without exiting. While subscribed, the JVM does not run its
 * shutdown sequence on those signals; the handler decides what happens.
 */
public final class JvmSignalSource implements SignalSource {

  @Override
  public Subscription subscribe(Set<UnixSignal> signals, Consumer<UnixSignal> handler) {
    Map<Signal, SignalHandler> previous = new HashMap<>();
    for (UnixSignal s : signals) {
      Signal sig = new Signal(s.name());
      previous.put(sig, Signal.handle(sig, received -> handler.accept(s)));
    }
    return () -> previous.forEach(Signal::handle);
  }
}
