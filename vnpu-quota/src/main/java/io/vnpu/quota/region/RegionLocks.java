package io.vnpu.quota.region;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;

/**
 * Record locks on the region's lock bytes (beyond EOF). Java takes classic POSIX locks; they
 * conflict with the C limiter's OFD locks on the same file. A lock this JVM already holds through
 * another channel shows up as {@link OverlappingFileLockException}, which means "held" here.
 */
final class RegionLocks {
  private final FileChannel channel;

  RegionLocks(FileChannel channel) {
    this.channel = channel;
  }

  /** Takes the byte exclusively without waiting; null when someone (maybe this JVM) holds it. */
  FileLock tryLock(long position) throws IOException {
    try {
      return channel.tryLock(position, 1, false);
    } catch (OverlappingFileLockException held) {
      return null;
    }
  }

  /** Retries {@link #tryLock} every millisecond for at most {@code maxMillis}; null on timeout. */
  FileLock lockBounded(long position, long maxMillis) throws IOException {
    long deadline = System.nanoTime() + maxMillis * 1_000_000L;
    for (; ; ) {
      FileLock l = tryLock(position);
      if (l != null || System.nanoTime() > deadline) return l;
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }
}
