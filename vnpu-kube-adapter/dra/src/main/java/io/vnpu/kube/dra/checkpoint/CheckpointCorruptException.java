package io.vnpu.kube.dra.checkpoint;

import java.io.IOException;
import java.nio.file.Path;

/** The checkpoint file exists but cannot be trusted (bad checksum, truncated, not JSON). */
public final class CheckpointCorruptException extends IOException {
  private final Path file;

  public CheckpointCorruptException(Path file, String reason, Throwable cause) {
    super(file + ": " + reason, cause);
    this.file = file;
  }

  /** The checkpoint file. */
  public Path file() {
    return file;
  }
}
