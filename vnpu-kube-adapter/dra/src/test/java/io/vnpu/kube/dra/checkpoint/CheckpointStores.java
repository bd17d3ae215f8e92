package io.vnpu.kube.dra.checkpoint;

import io.vnpu.quota.files.HostFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;

/**
 * Test access to the store's write seam and its group-commit queue, for tests in other packages.
 */
public final class CheckpointStores {
  private CheckpointStores() {}

  /** One durable write of an encoded checkpoint. */
  @FunctionalInterface
  public interface Write {
    void write(Path file, byte[] content) throws IOException;
  }

  /** A store whose writes go through {@code write}. */
  public static CheckpointStore withWrite(Path file, Clock clock, Write write) {
    return new CheckpointStore(file, clock, write::write);
  }

  /** The production write: temp file, fsync, rename, directory fsync when the name is new. */
  public static void writeDurably(Path file, byte[] content) throws IOException {
    HostFiles.writeAtomically(
        file, content, HostFiles.OWNER_ONLY_FILE, HostFiles.DirectorySync.WHEN_CREATED);
  }

  /** Commits submitted and not yet on disk nor failed. */
  public static long pending(CheckpointStore store) {
    return store.pendingSaves();
  }
}
