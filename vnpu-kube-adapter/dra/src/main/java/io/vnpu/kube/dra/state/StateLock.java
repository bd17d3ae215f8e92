package io.vnpu.kube.dra.state;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one lock around every change of the claim state, across the plugin instances that share a
 * data directory: a thread lock, then an exclusive record lock on {@code <data dir>/serialize.lock}
 * (two pods of the driver during a rolling update, each may be called by the kubelet). Both waits
 * together are bounded by the timeout; a lock held by another channel of this JVM (two instances in
 * one process, as in tests) counts as held and is waited for the same way.
 *
 * <p>A transaction may hand the thread lock on before its checkpoint write is durable ({@link
 * #handOff}): the next transaction of this process goes ahead (and its write joins the same group
 * commit) while the file lock stays held until the last handed-off write is done, so that another
 * instance never reads a checkpoint that this one is still writing.
 *
 * <p>The lock file is opened once and kept open: on Linux closing any descriptor of a file drops
 * the process's record locks on it. It is the agent's own file in the agent's 0750 directory; no
 * container can reach it.
 */
final class StateLock implements AutoCloseable {
  /** Name of the lock file in the plugin data directory (the Kubernetes kubeletplugin helper's). */
  static final String FILE_NAME = "serialize.lock";

  private final ReentrantLock thread = new ReentrantLock();
  private final Path file;
  private final FileChannel channel;
  private final Duration timeout;
  private final Object shares = new Object();
  private FileLock held; // guarded by shares
  private int holders; // guarded by shares: acquisitions and hand-offs that keep held

  /** What {@link #handOff} keeps: the file lock, until closed (once). */
  interface Share extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * @throws IOException naming the file when it cannot be opened or created
   */
  StateLock(Path dataDir, Duration timeout) throws IOException {
    this.file = dataDir.resolve(FILE_NAME);
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    try {
      this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new IOException(file + ": opening the state lock failed: " + e.getMessage(), e);
    }
  }

  /**
   * Takes both locks, waiting at most the timeout in all.
   *
   * @param what the operation, for the error
   * @return true when the file lock was taken afresh (another instance may have changed the state
   *     since this one last held it); false when this process held it throughout
   * @throws StateUnavailableException when either is not free in time (the kubelet retries)
   */
  boolean acquire(String what) throws StateUnavailableException {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      if (!thread.tryLock(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw busy(what, "the lock");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StateUnavailableException("interrupted while waiting to " + what, e);
    }
    if (thread.getHoldCount() > 1) {
      return false; // re-entered: the file lock is held already
    }
    synchronized (shares) {
      if (held != null) {
        holders++; // a handed-off write of this process still holds it
        return false;
      }
    }
    try {
      for (long pause = 1; ; pause = Math.min(pause * 2, 20)) {
        FileLock l = tryFileLock();
        if (l != null) {
          synchronized (shares) {
            held = l;
            holders = 1;
          }
          return true;
        }
        if (System.nanoTime() > deadline) {
          throw busy(what, file + " (held by another instance of the plugin)");
        }
        Thread.sleep(pause);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      thread.unlock();
      throw new StateUnavailableException("interrupted while waiting to " + what, e);
    } catch (IOException e) {
      thread.unlock();
      throw new StateUnavailableException(
          file + ": locking the claim state failed: " + e.getMessage(), e);
    } catch (StateUnavailableException e) {
      thread.unlock();
      throw e;
    }
  }

  /** Releases what {@link #acquire} took. */
  void release() {
    if (thread.getHoldCount() == 1) {
      drop();
    }
    thread.unlock();
  }

  /**
   * Releases the thread lock of the outermost {@link #acquire} and keeps the file lock until the
   * returned share is closed.
   *
   * @throws IllegalStateException when not held exactly once by this thread
   */
  Share handOff() {
    if (thread.getHoldCount() != 1) {
      throw new IllegalStateException(
          "hand-off of a lock held " + thread.getHoldCount() + " times");
    }
    thread.unlock();
    java.util.concurrent.atomic.AtomicBoolean open =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    return () -> {
      if (open.getAndSet(false)) {
        drop();
      }
    };
  }

  private void drop() {
    synchronized (shares) {
      if (--holders == 0 && held != null) {
        try {
          held.release();
        } catch (IOException e) {
          // the descriptor stays open; the lock goes with the process at the latest
        }
        held = null;
        shares.notifyAll();
      }
    }
  }

  private FileLock tryFileLock() throws IOException {
    try {
      return channel.tryLock();
    } catch (OverlappingFileLockException inThisJvm) {
      return null;
    }
  }

  private StateUnavailableException busy(String what, String lock) {
    return new StateUnavailableException(
        "claim state busy: " + what + " waited " + timeout.toMillis() + " ms for " + lock, null);
  }

  /**
   * Closes the lock file (its record lock goes with it) once the writes handed off are done,
   * waiting at most the timeout for them: another instance must not read the checkpoint while one
   * of this instance's is still being written.
   */
  @Override
  public void close() throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (shares) {
      for (long left; holders > 0 && (left = deadline - System.nanoTime()) > 0; ) {
        try {
          TimeUnit.NANOSECONDS.timedWait(shares, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    channel.close();
  }
}
