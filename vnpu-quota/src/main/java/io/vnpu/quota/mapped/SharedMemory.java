package io.vnpu.quota.mapped;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;

/**
 * Atomic little-endian access to a file mapped by several processes (the quota region and the
 * compute registry; internal to vnpu-quota). Every access to a field another process may
 * write goes through a VarHandle with volatile (sequentially consistent) semantics, matching the C
 * limiter's {@code __atomic_*(…, __ATOMIC_SEQ_CST)}; offsets must be naturally aligned.
 */
public final class SharedMemory {
  private static final VarHandle LONGS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INTS =
      MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private final MappedByteBuffer buf;

  public SharedMemory(MappedByteBuffer buf) {
    this.buf = buf;
    buf.order(ByteOrder.LITTLE_ENDIAN);
  }

  public long getLong(int off) {
    return (long) LONGS.getVolatile(buf, off);
  }

  /**
   * A plain (unordered) read, for a snapshot that validates itself afterwards: the caller reads a
   * sequence with {@link #getLong}, reads the data with this, calls {@link #loadLoadFence()}, and
   * re-reads the sequence; a changed sequence discards the data. Cheaper than a volatile VarHandle
   * read per field.
   */
  public long getLongPlain(int off) {
    return buf.getLong(off);
  }

  /** Plain read of an int; see {@link #getLongPlain}. */
  public int getIntPlain(int off) {
    return buf.getInt(off);
  }

  /** Orders every read before it before every read after it (ends a block of plain reads). */
  public static void loadLoadFence() {
    VarHandle.loadLoadFence();
  }

  public void setLong(int off, long v) {
    LONGS.setVolatile(buf, off, v);
  }

  public long addLong(int off, long delta) {
    return (long) LONGS.getAndAdd(buf, off, delta);
  }

  public boolean casLong(int off, long expect, long update) {
    return LONGS.compareAndSet(buf, off, expect, update);
  }

  public long swapLong(int off, long v) {
    return (long) LONGS.getAndSet(buf, off, v);
  }

  public int getInt(int off) {
    return (int) INTS.getVolatile(buf, off);
  }

  public void setInt(int off, int v) {
    INTS.setVolatile(buf, off, v);
  }

  public boolean casInt(int off, int expect, int update) {
    return INTS.compareAndSet(buf, off, expect, update);
  }

  public void addInt(int off, int delta) {
    INTS.getAndAdd(buf, off, delta);
  }

  public int getU16(int off) {
    return Short.toUnsignedInt(buf.getShort(off));
  }

  public void setU16(int off, int v) {
    buf.putShort(off, (short) v);
  }

  public byte[] getBytes(int off, int len) {
    byte[] b = new byte[len];
    buf.get(off, b);
    return b;
  }

  public void setBytes(int off, byte[] b, int fieldLen) {
    byte[] padded = new byte[fieldLen];
    System.arraycopy(b, 0, padded, 0, Math.min(b.length, fieldLen - 1));
    buf.put(off, padded);
  }

  public void zero(int off, int len) {
    buf.put(off, new byte[len]);
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
