package io.vnpu.quota.host.process;

import java.io.IOException;

/** Port: sends a signal to a process (kill(2)). */
@FunctionalInterface
public interface SignalSender {

  /**
   * Sends {@code signal} to process {@code pid}.
   *
   * @throws IOException when the kernel refuses (the message names pid, signal and errno)
   */
  void send(long pid, UnixSignal signal) throws IOException;
}
