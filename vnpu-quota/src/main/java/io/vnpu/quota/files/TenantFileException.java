package io.vnpu.quota.files;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A file a tenant can reach is not what the caller may open: leased, a link, not a regular file, of
 * the wrong size or sparse ({@link TenantFiles}). An error for that one file, never a wait.
 */
public final class TenantFileException extends IOException {
  private final Path file;

  public TenantFileException(Path file, String reason) {
    super(file + ": " + reason);
    this.file = file;
  }

  /** The file. */
  public Path file() {
    return file;
  }
}
