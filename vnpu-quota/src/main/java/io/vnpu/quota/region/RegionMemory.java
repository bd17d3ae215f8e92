package io.vnpu.quota.region;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;

/**
 * Atomic little-endian access to the mapped region. Every access to a field another process may
 * write goes through a VarHandle with volatile (sequentially consistent) semantics, matching the C
 * limiter's {@code __atomic_*(…, __ATOMIC_SEQ_CST)}; offsets must be naturally aligned.
 */
final class RegionMemory {
  private static final VarHandle LONGS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INTS =
      MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private final MappedByteBuffer buf;

  RegionMemory(MappedByteBuffer buf) {
    this.buf = buf;
    buf.order(ByteOrder.LITTLE_ENDIAN);
  }

  long getLong(int off) {
    return (long) LONGS.getVolatile(buf, off);
  }

  void setLong(int off, long v) {
    LONGS.setVolatile(buf, off, v);
  }

  long addLong(int off, long delta) {
    return (long) LONGS.getAndAdd(buf, off, delta);
  }

  boolean casLong(int off, long expect, long update) {
    return LONGS.compareAndSet(buf, off, expect, update);
  }

  long swapLong(int off, long v) {
    return (long) LONGS.getAndSet(buf, off, v);
  }

  int getInt(int off) {
    return (int) INTS.getVolatile(buf, off);
  }

  void setInt(int off, int v) {
    INTS.setVolatile(buf, off, v);
  }

  boolean casInt(int off, int expect, int update) {
    return INTS.compareAndSet(buf, off, expect, update);
  }

  int getU16(int off) {
    return Short.toUnsignedInt(buf.getShort(off));
  }

  void setU16(int off, int v) {
    buf.putShort(off, (short) v);
  }

  byte[] getBytes(int off, int len) {
    byte[] b = new byte[len];
    buf.get(off, b);
    return b;
  }

  void setBytes(int off, byte[] b, int fieldLen) {
    byte[] padded = new byte[fieldLen];
    System.arraycopy(b, 0, padded, 0, Math.min(b.length, fieldLen - 1));
    buf.put(off, padded);
  }

  void zero(int off, int len) {
    buf.put(off, new byte[len]);
  }

  /** Unsigned saturating add, so a sum of u64 counters never wraps. */
  static long satAdd(long a, long b) {
    long s = a + b;
    return Long.compareUnsigned(s, a) < 0 ? -1L : s;
  }

  /** Clamps an unsigned u64 to the non-negative long range for reporting. */
  static long clampReport(long u) {
    return u < 0 ? Long.MAX_VALUE : u;
  }
}
