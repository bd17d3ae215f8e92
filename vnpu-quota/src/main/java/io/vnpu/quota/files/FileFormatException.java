package io.vnpu.quota.files;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A shared-memory file (quota region, compute registry) that is not usable in this layout: the one
 * message rule for both, {@code <kind> <file>: field <field> = <actual>, expected <expected>}.
 */
public abstract class FileFormatException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final String field;

  /**
   * @param kind what the file is, e.g. {@code quota region}
   * @param file the file
   * @param field the field that failed validation, as the layout's header names it
   * @param actual the value found
   * @param expected what this layout needs
   */
  protected FileFormatException(
      String kind, Path file, String field, String actual, String expected) {
    super(kind + " " + file + ": field " + field + " = " + actual + ", expected " + expected);
    this.file = file;
    this.field = field;
  }

  /** The file. */
  public Path file() {
    return file;
  }

  /** The offending field, as the layout's header names it. */
  public String field() {
    return field;
  }
}
