package io.vnpu.quota.region;

import java.io.IOException;
import java.nio.file.Path;

/** A bounded wait on a region (init lock, config lock, consistent read) ran out. */
public final class RegionBusyException extends IOException {
  private static final long serialVersionUID = 1L;

  public RegionBusyException(Path file, String what) {
    super("quota region " + file + ": " + what);
  }
}
