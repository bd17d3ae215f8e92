package io.vnpu.quota.registry;

import io.vnpu.quota.files.FileFormatException;
import java.nio.file.Path;

/**
 * A compute registry file that is not a valid registry of this layout; names file, field and value.
 */
public final class RegistryFormatException extends FileFormatException {
  private static final long serialVersionUID = 1L;

  /**
   * @param field the header field that failed validation (C macro name, e.g. {@code VNPU_RH_MAJOR})
   */
  public RegistryFormatException(Path file, String field, String actual, String expected) {
    super("compute registry", file, field, actual, expected);
  }
}
