package io.vnpu.kube.hami;

import java.time.Duration;

/** Runs a task once after a delay; injected so loops can be driven step by step in tests. */
@FunctionalInterface
public interface Scheduler {
  void schedule(Runnable task, Duration delay);
}
