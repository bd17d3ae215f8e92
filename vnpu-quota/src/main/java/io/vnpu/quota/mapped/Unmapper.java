package io.vnpu.quota.mapped;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;

/**
 * Unmaps a {@link MappedByteBuffer} now instead of when the garbage collector gets to it (3,000
 * region creates left 1,884 mappings alive). Java 17 has no public API for it; the JDK's own {@code
 * sun.misc.Unsafe.invokeCleaner} (module {@code jdk.unsupported}, open to class-path code) does it.
 * Where that is missing, unmapping is left to the collector, as before.
 */
final class Unmapper {
  private static final MethodHandle INVOKE_CLEANER = find();

  private Unmapper() {}

  private static MethodHandle find() {
    try {
      Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
      Field f = unsafeClass.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      Object unsafe = f.get(null);
      return MethodHandles.lookup()
          .findVirtual(
              unsafeClass, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class))
          .bindTo(unsafe);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Unmaps {@code buf}; no access to it may follow (the caller guarantees that).
   *
   * @return whether it was unmapped now (false: left to the garbage collector)
   */
  static boolean unmap(MappedByteBuffer buf) {
    if (INVOKE_CLEANER == null) return false;
    try {
      INVOKE_CLEANER.invokeExact((ByteBuffer) buf);
      return true;
    } catch (Throwable t) {
      return false;
    }
  }
}
