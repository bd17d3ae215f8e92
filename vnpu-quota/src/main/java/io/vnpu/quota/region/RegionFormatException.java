package io.vnpu.quota.region;

import java.io.IOException;
import java.nio.file.Path;

/** A region file that is not a usable HVNP v1 region; names the file, the field and its value. */
public final class RegionFormatException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final String field;

  public RegionFormatException(Path file, String field, String actual, String expected) {
    super("quota region " + file + ": field " + field + " = " + actual + ", expected " + expected);
    this.file = file;
    this.field = field;
  }

  /** The region file. */
  public Path file() {
    return file;
  }

  /** The offending header field, named as in vnpu_region.h without prefix (e.g. {@code magic}). */
  public String field() {
    return field;
  }
}
