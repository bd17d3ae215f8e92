package io.vnpu.kube.hami;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Records scheduled tasks; tests run them one by one. */
final class RecordingScheduler implements Scheduler {
  record Task(Runnable task, Duration delay) {}

  final List<Task> tasks = new ArrayList<>();

  @Override
  public synchronized void schedule(Runnable task, Duration delay) {
    tasks.add(new Task(task, delay));
  }

  /** Removes and runs the oldest task; returns its delay. */
  synchronized Duration runNext() {
    Task t = tasks.remove(0);
    t.task().run();
    return t.delay();
  }
}
