package io.vnpu.quota.mapped;

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
}
