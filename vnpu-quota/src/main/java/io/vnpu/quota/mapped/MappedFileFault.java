package io.vnpu.quota.mapped;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * An access to a mapped region or registry faulted: the file was truncated (or its storage failed)
 * while mapped. The JVM reports such a fault as {@link InternalError}, which no {@code catch
 * (IOException | RuntimeException)} sees, so rollbacks were skipped and {@code vnpu top} died;
 * {@link SharedMemory} turns it into this unchecked I/O exception.
 */
public final class MappedFileFault extends UncheckedIOException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;

  public MappedFileFault(Path file, InternalError cause) {
    super(
        new IOException(
            file
                + ": mapped file was truncated or became unreadable while mapped ("
                + cause.getMessage()
                + ")",
            cause));
    this.file = file;
  }

  /** The mapped file. */
  public Path file() {
    return file;
  }
}
