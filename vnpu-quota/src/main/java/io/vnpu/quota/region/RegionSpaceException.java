package io.vnpu.quota.region;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A new quota region could not be given all of its blocks (file system full, quota exceeded, I/O
 * error): the region is not created, never left sparse (a sparse region faults with SIGBUS in every
 * process that maps it once the file system is full).
 */
public final class RegionSpaceException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;

  public RegionSpaceException(Path file, long bytes, IOException cause) {
    super(
        "quota region " + file + ": cannot allocate " + bytes + " bytes: " + cause.getMessage(),
        cause);
    this.file = file;
  }

  /** The region file that was not created. */
  public Path file() {
    return file;
  }
}
