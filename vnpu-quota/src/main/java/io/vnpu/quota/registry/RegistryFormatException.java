package io.vnpu.quota.registry;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A compute registry file that is not a valid registry of this layout; names file, field and value.
 */
public final class RegistryFormatException extends IOException {
  private final Path file;
  private final String field;

  /**
   * @param file the registry file
   * @param field the header field that failed validation (C macro name, e.g. {@code VNPU_RH_MAJOR})
   * @param actual the value found
   * @param expected what this layout needs
   */
  public RegistryFormatException(Path file, String field, String actual, String expected) {
    super("compute registry " + file + ": " + field + " is " + actual + ", expected " + expected);
    this.file = file;
    this.field = field;
  }

  public Path file() {
    return file;
  }

  public String field() {
    return field;
  }
}
