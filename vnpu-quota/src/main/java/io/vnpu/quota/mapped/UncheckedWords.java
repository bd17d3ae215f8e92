package io.vnpu.quota.mapped;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;

/**
 * Sequentially consistent access to the 8- and 4-byte words of a mapping by absolute address, with
 * no check at all: for the two hot paths of the quota region only, admission ({@code
 * MemoryAccount}) and the usage snapshot's slot loop ({@code QuotaRegion.usage}), where every
 * address is the mapping's base ({@link SharedMemory#uncheckedBase()}) plus an offset built from a
 * checked device, a slot index and the clamped {@code slot_hwm}, and where the {@link SharedMemory}
 * holding the mapping stays reachable and mapped across the access (a {@code
 * Reference.reachabilityFence} after it, or a {@link SharedMemory.Pin}).
 *
 * <p>Why not {@link SharedMemory}'s {@code VarHandle}: each of its accesses re-reads the buffer's
 * address, limit and read-only flag and checks bounds and alignment, and after every locked
 * instruction those loads start again (a dependent chain of three loads before the next atomic);
 * with the base in a register the admit + release pair runs at its atomics' floor plus the slot
 * scan (docs/benchmarks.md, "Java admit+release"), and the snapshot's loop reads each word with one
 * load instead of a bounds check, a scope check and a load. The access is the JDK's own {@code
 * sun.misc.Unsafe} (module {@code jdk.unsupported}, open to class-path code, as {@link Unmapper}
 * uses it), whose volatile, get-and-add and compare-and-swap forms are the same intrinsics the
 * {@code VarHandle} ends in: a fault on a truncated file reaches the caller as the same {@link
 * InternalError}.
 *
 * <p>The layout is little-endian; these accesses use the native order, so they are available only
 * on a little-endian machine (x86-64, aarch64).
 */
public final class UncheckedWords {
  private static final sun.misc.Unsafe U = find();
  private static final long BUFFER_ADDRESS = addressField();

  private UncheckedWords() {}

  private static sun.misc.Unsafe find() {
    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) return null;
    try {
      Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      return (sun.misc.Unsafe) f.get(null);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  private static long addressField() {
    if (U == null) return -1;
    try {
      return U.objectFieldOffset(Buffer.class.getDeclaredField("address"));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return -1;
    }
  }

  /** Whether this JVM offers the access (jdk.unsupported present, little-endian machine). */
  public static boolean available() {
    return U != null && BUFFER_ADDRESS >= 0;
  }

  /**
   * Address of byte 0 of {@code buf}'s mapping.
   *
   * @throws UnsupportedOperationException when {@link #available()} is false
   */
  static long baseOf(MappedByteBuffer buf) {
    if (!available()) {
      throw new UnsupportedOperationException(
          "unchecked mapped access needs sun.misc.Unsafe (module jdk.unsupported) on a"
              + " little-endian machine; this JVM: "
              + System.getProperty("java.vm.name")
              + " "
              + System.getProperty("java.version")
              + ", "
              + ByteOrder.nativeOrder());
    }
    return U.getLong(buf, BUFFER_ADDRESS);
  }

  public static long getLong(long address) {
    return U.getLongVolatile(null, address);
  }

  /**
   * A plain (unordered) read, for a snapshot that validates itself afterwards (see {@link
   * SharedMemory#getLongPlain}).
   */
  public static long getLongPlain(long address) {
    return U.getLong(null, address);
  }

  public static int getInt(long address) {
    return U.getIntVolatile(null, address);
  }

  /** Atomic add; returns the value before. */
  public static long addLong(long address, long delta) {
    return U.getAndAddLong(null, address, delta);
  }

  public static boolean casLong(long address, long expect, long update) {
    return U.compareAndSwapLong(null, address, expect, update);
  }
}
