package io.vnpu.kube.limiter;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A limiter file is missing, unreadable or not what a soft-sliced container needs. The message is
 * {@code <file>: <reason>}, so the Allocate/Prepare error and the health endpoint name the file.
 */
public final class LimiterUnavailableException extends Exception {
  private static final long serialVersionUID = 1L;

  private final transient Path file;

  public LimiterUnavailableException(Path file, String reason) {
    super(Objects.requireNonNull(file, "file") + ": " + reason);
    this.file = file;
  }

  /** The file that failed the check. */
  public Path file() {
    return file;
  }
}
