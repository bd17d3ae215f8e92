package io.vnpu.quota.region;

import io.vnpu.quota.files.FileFormatException;
import java.nio.file.Path;

/** A region file that is not a usable HVNP v1 region; names the file, the field and its value. */
public final class RegionFormatException extends FileFormatException {
  private static final long serialVersionUID = 1L;

  /**
   * @param field the header field, named as in vnpu_region.h without prefix (e.g. {@code magic})
   */
  public RegionFormatException(Path file, String field, String actual, String expected) {
    super("quota region", file, field, actual, expected);
  }
}
