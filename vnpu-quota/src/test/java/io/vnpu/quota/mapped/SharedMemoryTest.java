package io.vnpu.quota.mapped;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedMemoryTest {
  @TempDir Path dir;

  private SharedMemory map(Path file) throws IOException {
    Files.write(file, new byte[4096]);
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      MappedByteBuffer buf = ch.map(FileChannel.MapMode.READ_WRITE, 0, 4096);
      return new SharedMemory(buf, file);
    }
  }

  @Test
  void unmapAfterPinsClosedUnmapsAndLaterPinsFail() throws IOException {
    SharedMemory mem = map(dir.resolve("region"));
    try (SharedMemory.Pin p = mem.pin()) {
      mem.setLong(8, 42);
    }
    assertTrue(mem.unmap());
    assertThrows(IllegalStateException.class, mem::pin);
    assertFalse(mem.unmap());
  }

  @Test
  void aPinNeverClosedDoesNotHangUnmap() throws Exception {
    // what an asynchronous InternalError between a pin and its close leaves: a read lock whose
    // holder is gone
    SharedMemory mem = map(dir.resolve("region"));
    Thread leaker = new Thread(mem::pin);
    leaker.start();
    leaker.join();
    boolean unmapped =
        assertTimeoutPreemptively(
            Duration.ofMillis(SharedMemory.UNMAP_WAIT_MS * 10), () -> mem.unmap());
    assertFalse(unmapped, "the pages are left to the collector while a pin is outstanding");
  }

  // the admission's unchecked words are the same little-endian words the checked accessors and the
  // file hold: a mismatch (wrong base, wrong order) would make Java and C admit on different bytes
  @Test
  void uncheckedWordsSeeAndChangeTheCheckedWords() throws IOException {
    assertTrue(UncheckedWords.available(), "x86-64 / aarch64 JDK with jdk.unsupported");
    Path file = dir.resolve("region");
    SharedMemory mem = map(file);
    assertEquals(4096, mem.mappedBytes());
    long base = mem.uncheckedBase();
    mem.setLong(64, 0x0102_0304_0506_0708L);
    mem.setInt(200, 0x1122_3344);
    assertEquals(0x0102_0304_0506_0708L, UncheckedWords.getLong(base + 64));
    assertEquals(0x1122_3344, UncheckedWords.getInt(base + 200));
    assertEquals(0x0102_0304_0506_0708L, UncheckedWords.addLong(base + 64, 0x10));
    assertEquals(0x0102_0304_0506_0718L, mem.getLong(64));
    assertFalse(UncheckedWords.casLong(base + 64, 0, 1));
    assertTrue(UncheckedWords.casLong(base + 64, 0x0102_0304_0506_0718L, -2L));
    assertEquals(-2L, mem.getLong(64));
    UncheckedWords.addLong(base + 4088, 0x7fL);
    mem.unmap();
    byte[] bytes = Files.readAllBytes(file);
    assertEquals((byte) 0xfe, bytes[64], "little-endian in the file");
    assertEquals((byte) 0xff, bytes[71]);
    assertEquals((byte) 0x7f, bytes[4088], "the last word of the mapping");
  }
}
