package io.vnpu.quota.mapped;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Atomic little-endian access to a file mapped by several processes (the quota region and the
 * compute registry; internal to vnpu-quota). Every access to a field another process may write goes
 * through a VarHandle with volatile (sequentially consistent) semantics, matching the C limiter's
 * {@code __atomic_*(…, __ATOMIC_SEQ_CST)}; offsets must be naturally aligned. Every accessor throws
 * {@link MappedFileFault} (unchecked) instead of the JVM's {@link InternalError} when the file was
 * truncated while mapped.
 */
public final class SharedMemory {
  private static final VarHandle LONGS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INTS =
      MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private final MappedByteBuffer buf;
  private final Path file;
  private final ReentrantReadWriteLock mapping = new ReentrantReadWriteLock();
  private final Pin pin = new Pin();
  private boolean unmapped; // guarded by mapping

  /**
   * @param file the mapped file, named by {@link MappedFileFault} when an access faults (the file
   *     was truncated while mapped)
   */
  public SharedMemory(MappedByteBuffer buf, Path file) {
    this.buf = buf;
    this.file = file;
    buf.order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * Keeps the mapping alive for one operation: every public operation of a region or registry holds
   * a pin (try-with-resources) so that {@link #unmap()} never pulls the pages from under a running
   * access, which would crash the JVM instead of failing one call. Reentrant.
   *
   * @throws IllegalStateException once the mapping was unmapped (the region was closed)
   */
  public Pin pin() {
    mapping.readLock().lock();
    if (unmapped) {
      mapping.readLock().unlock();
      throw new IllegalStateException(file + " is closed");
    }
    return pin;
  }

  /** A held {@link #pin()}; closing it lets {@link #unmap()} proceed. */
  public final class Pin implements AutoCloseable {
    private Pin() {}

    @Override
    public void close() {
      mapping.readLock().unlock();
    }
  }

  /** How long {@link #unmap()} waits for pinned operations to finish before it leaves the pages. */
  static final long UNMAP_WAIT_MS = 1000;

  /**
   * Unmaps the file now (after pinned operations finished) instead of at garbage collection; later
   * {@link #pin()} calls fail. Must not be called while the calling thread holds a pin.
   *
   * <p>The wait for pinned operations is bounded by {@link #UNMAP_WAIT_MS}: a fault in a file a
   * tenant truncated reaches compiled code as an asynchronous {@link InternalError}, which can land
   * between a pin and its release and so leave a pin that is never closed. Closing a region must
   * not hang the agent on that; the pages are then left to the garbage collector (a mapping without
   * references is unmapped by its cleaner).
   *
   * @return whether the pages were unmapped now (false: left to the collector)
   */
  public boolean unmap() {
    boolean locked;
    try {
      locked = mapping.writeLock().tryLock(UNMAP_WAIT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      locked = false;
    }
    if (!locked) return false;
    try {
      if (unmapped) return false;
      unmapped = true;
      return Unmapper.unmap(buf);
    } finally {
      mapping.writeLock().unlock();
    }
  }

  /**
   * Address of byte 0 of the mapping, for {@link UncheckedWords}: valid while this object is
   * reachable and never for a mapping that {@link #unmap()} may pull (the caller holds it only
   * where unmap is never called, as a claimed {@code MemoryAccount} does).
   *
   * @throws UnsupportedOperationException when {@link UncheckedWords#available()} is false
   */
  public long uncheckedBase() {
    return UncheckedWords.baseOf(buf);
  }

  /** Bytes mapped: every offset used with {@link #uncheckedBase()} must lie below it. */
  public int mappedBytes() {
    return buf.capacity();
  }

  private MappedFileFault fault(InternalError e) {
    return new MappedFileFault(file, e);
  }

  public long getLong(int off) {
    try {
      return (long) LONGS.getVolatile(buf, off);
    } catch (InternalError e) {
      throw fault(e);
    }
  }

  /**
   * A plain (unordered) read, for a snapshot that validates itself afterwards: the caller reads a
   * sequence with {@link #getLong}, reads the data with this, calls {@link #loadLoadFence()}, and
   * re-reads the sequence; a changed sequence discards the data. Cheaper than a volatile VarHandle
   * read per field.
   */
  public long getLongPlain(int off) {
    try {
      return buf.getLong(off);
    } catch (InternalError e) {
      throw fault(e);
    }
  }

  /** Plain read of an int; see {@link #getLongPlain}. */
  public int getIntPlain(int off) {
    try {
      return buf.getInt(off);
    } catch (InternalError e) {
      throw fault(e);
    }
  }

  /** Orders every read before it before every read after it (ends a block of plain reads). */
  public static void loadLoadFence() {
    VarHandle.loadLoadFence();
  }

  public void setLong(int off, long v) {
    try {
      LONGS.setVolatile(buf, off, v);
    } catch (InternalError e) {
      throw fault(e);
    }
  }

  public long addLong(int off, long delta) {
    try {
      return (long) LONGS.getAndAdd(buf, off, delta);
    } catch (InternalError e) {
      throw fault(e);
    }
  }

  public boolean casLong(int off, long expect, long update) {
    try {
      return LONGS.compareAndSet(buf, off, expect, update);
    } catch (InternalError e) {
      throw fault(e);
    }
  }

  public long swapLong(int off, long v) {
    try {
      return (long) LONGS.getAndSet(buf, off, v);
    } catch (InternalError e) {
      throw fault(e);
    }
  }

  public int getInt(int off) {
    try {
      return (int) INTS.getVolatile(buf, off);
    } catch (InternalError e) {
      throw fault(e);
    }
  }

  public void setInt(int off, int v) {
    try {
      INTS.setVolatile(buf, off, v);
    } catch (InternalError e) {
      throw fault(e);
    }
  }

  public boolean casInt(int off, int expect, int update) {
    try {
      return INTS.compareAndSet(buf, off, expect, update);
    } catch (InternalError e) {
      throw fault(e);
    }
  }

  public void addInt(int off, int delta) {
    try {
      INTS.getAndAdd(buf, off, delta);
    } catch (InternalError e) {
      throw fault(e);
    }
  }

  public int getU16(int off) {
    try {
      return Short.toUnsignedInt(buf.getShort(off));
    } catch (InternalError e) {
      throw fault(e);
    }
  }

  public void setU16(int off, int v) {
    try {
      buf.putShort(off, (short) v);
    } catch (InternalError e) {
      throw fault(e);
    }
  }

  public byte[] getBytes(int off, int len) {
    try {
      byte[] b = new byte[len];
      buf.get(off, b);
      return b;
    } catch (InternalError e) {
      throw fault(e);
    }
  }

  public void setBytes(int off, byte[] b, int fieldLen) {
    try {
      byte[] padded = new byte[fieldLen];
      System.arraycopy(b, 0, padded, 0, Math.min(b.length, fieldLen - 1));
      buf.put(off, padded);
    } catch (InternalError e) {
      throw fault(e);
    }
  }

  public void zero(int off, int len) {
    try {
      buf.put(off, new byte[len]);
    } catch (InternalError e) {
      throw fault(e);
    }
  }

  /** Unsigned saturating add, so a sum of u64 counters never wraps. */
  public static long satAdd(long a, long b) {
    long s = a + b;
    return Long.compareUnsigned(s, a) < 0 ? -1L : s;
  }

  /** Clamps an unsigned u64 to the non-negative long range for reporting. */
  public static long clampReport(long u) {
    return u < 0 ? Long.MAX_VALUE : u;
  }
}
