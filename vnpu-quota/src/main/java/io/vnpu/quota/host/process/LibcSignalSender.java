package io.vnpu.quota.host.process;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;

/**
 * {@link SignalSender} over libc {@code kill(2)} through JNA: the JDK can only send SIGTERM and
 * SIGKILL ({@code Process.destroy}), a supervisor must forward SIGINT and SIGHUP too.
 */
public final class LibcSignalSender implements SignalSender {

  /** The part of libc this class calls. */
  interface LibC extends Library {
    /** kill(2); a -1 return becomes a {@link LastErrorException} carrying errno. */
    int kill(int pid, int sig) throws LastErrorException;
  }

  private static final int ESRCH = 3;

  private final LibC libc;

  public LibcSignalSender() {
    this(Native.load("c", LibC.class));
  }

  LibcSignalSender(LibC libc) {
    this.libc = libc;
  }

  @Override
  public void send(long pid, UnixSignal signal) throws IOException {
    if (pid <= 0 || pid > Integer.MAX_VALUE) {
      // kill(0 or negative) addresses process groups: never what a forwarder means
      throw new IllegalArgumentException("pid must be a single process id > 0: " + pid);
    }
    try {
      libc.kill((int) pid, signal.number());
    } catch (LastErrorException e) {
      if (e.getErrorCode() == ESRCH) return; // the child exited meanwhile: nothing left to signal
      throw new IOException(
          "kill(" + pid + ", " + signal.fullName() + ") failed: errno " + e.getErrorCode(), e);
    }
  }
}
