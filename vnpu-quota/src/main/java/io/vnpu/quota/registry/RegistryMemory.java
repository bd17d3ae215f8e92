package io.vnpu.quota.registry;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;

/** Atomic little-endian access to a mapped registry (volatile semantics, naturally aligned offsets). */
final class RegistryMemory {
  private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INTS = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private final MappedByteBuffer buf;

  RegistryMemory(MappedByteBuffer buf) {
    this.buf = buf;
    buf.order(ByteOrder.LITTLE_ENDIAN);
  }

  long getLong(int off) {
    return (long) LONGS.getVolatile(buf, off);
  }

  void setLong(int off, long v) {
    LONGS.setVolatile(buf, off, v);
  }

  int getInt(int off) {
    return (int) INTS.getVolatile(buf, off);
  }

  void setInt(int off, int v) {
    INTS.setVolatile(buf, off, v);
  }

  void addInt(int off, int delta) {
    INTS.getAndAdd(buf, off, delta);
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
}
