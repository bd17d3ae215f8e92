package io.vnpu.quota.host.process;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Runs one command as a child with inherited stdin/stdout/stderr, forwards the signals this process
 * receives to it, and returns its exit status (128 + N when it died of signal N).
 *
 * <p>States: NEW (no child yet) → RUNNING → ENDED. A forwarded signal that arrives in NEW is
 * remembered and the child is then never started (the status is the one the signal would have
 * caused); one that arrives in RUNNING is sent to the child; in ENDED it is dropped.
 */
public final class ChildSupervisor {

  /** Signals forwarded by default: interrupt, terminate and hang-up. */
  public static final Set<UnixSignal> FORWARDED =
      Set.of(UnixSignal.INT, UnixSignal.TERM, UnixSignal.HUP);

  /** After an interrupt of the waiting thread the child gets SIGTERM, then SIGKILL after this. */
  static final long TERMINATE_GRACE_MS = 5000;

  private enum State {
    NEW,
    RUNNING,
    ENDED
  }

  private final SignalSource signals;
  private final SignalSender sender;
  private final Set<UnixSignal> forwarded;
  private final PrintStream diagnostics;

  private final Object lock = new Object();
  private State state = State.NEW;
  private Process process;
  private UnixSignal signalBeforeStart;

  /**
   * @param signals where received signals come from
   * @param sender how they reach the child
   * @param forwarded which signals to forward
   * @param diagnostics where a failed forward is reported (the run goes on)
   */
  public ChildSupervisor(
      SignalSource signals,
      SignalSender sender,
      Set<UnixSignal> forwarded,
      PrintStream diagnostics) {
    this.signals = signals;
    this.sender = sender;
    this.forwarded = Set.copyOf(forwarded);
    this.diagnostics = diagnostics;
  }

  /**
   * Runs {@code command} to its end. A supervisor runs one command once.
   *
   * @throws CommandLaunchException when the program cannot be started (status 126 or 127)
   * @throws InterruptedException when the calling thread is interrupted; the child is terminated
   *     first (SIGTERM, SIGKILL after {@value #TERMINATE_GRACE_MS} ms)
   */
  @SuppressWarnings("try") // the subscription is a scope guard: forwarding ends with the block
  public ExitStatus run(ChildCommand command) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command.argv()).inheritIO();
    pb.environment().putAll(command.environment());
    if (command.workingDirectory() != null) pb.directory(command.workingDirectory().toFile());

    try (SignalSource.Subscription sub = signals.subscribe(forwarded, this::onSignal)) {
      Process p;
      synchronized (lock) {
        if (state != State.NEW)
          throw new IllegalStateException("a supervisor runs one command once");
        if (signalBeforeStart != null) {
          state = State.ENDED;
          return ExitStatus.killedBy(signalBeforeStart);
        }
        p = start(pb, command);
        process = p;
        state = State.RUNNING;
      }
      try {
        int code = p.waitFor();
        return new ExitStatus(code & 0xff);
      } catch (InterruptedException e) {
        terminate(p);
        throw e;
      } finally {
        synchronized (lock) {
          state = State.ENDED;
        }
      }
    }
  }

  /** The running child's pid, or -1 when there is none (yet or any more). */
  public long childPid() {
    synchronized (lock) {
      return state == State.RUNNING ? process.pid() : -1;
    }
  }

  private static Process start(ProcessBuilder pb, ChildCommand command)
      throws CommandLaunchException {
    try {
      return pb.start();
    } catch (IOException e) {
      String program = command.argv().get(0);
      String msg = String.valueOf(e.getMessage());
      if (msg.contains("error=2,")) {
        throw new CommandLaunchException(
            program + ": command not found", new ExitStatus(ExitStatus.NOT_FOUND), e);
      }
      throw new CommandLaunchException(
          program + ": cannot execute: " + msg, new ExitStatus(ExitStatus.CANNOT_EXECUTE), e);
    }
  }

  private void onSignal(UnixSignal signal) {
    synchronized (lock) {
      switch (state) {
        case NEW -> {
          if (signalBeforeStart == null) signalBeforeStart = signal;
        }
        case RUNNING -> {
          try {
            sender.send(process.pid(), signal);
          } catch (IOException | RuntimeException e) {
            diagnostics.println(
                "vnpu: could not forward "
                    + signal.fullName()
                    + " to pid "
                    + process.pid()
                    + ": "
                    + e.getMessage());
          }
        }
        case ENDED -> {
          // the child is gone; the signal has nobody to reach
        }
      }
    }
  }

  private void terminate(Process p) {
    p.destroy();
    try {
      if (!p.waitFor(TERMINATE_GRACE_MS, TimeUnit.MILLISECONDS)) p.destroyForcibly();
    } catch (InterruptedException again) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
