package io.vnpu.api.fault;

import io.vnpu.api.config.ConfigException;
import io.vnpu.api.config.ConfigProblem;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Collects every problem of one file so that one load reports them all. */
final class Problems {
  private final String file;
  private final List<ConfigProblem> errors = new ArrayList<>();
  private final List<ConfigProblem> warnings = new ArrayList<>();

  Problems(String file) {
    this.file = file;
  }

  String file() {
    return file;
  }

  void error(LinedJson at, String path, String message) {
    errors.add(new ConfigProblem(file, at.line(), path, at.shown(), message));
  }

  void warn(LinedJson at, String path, String message) {
    warnings.add(new ConfigProblem(file, at.line(), path, at.shown(), message));
  }

  void errorWithoutValue(LinedJson at, String path, String message) {
    errors.add(new ConfigProblem(file, at.line(), path, Optional.empty(), message));
  }

  List<ConfigProblem> warnings() {
    return List.copyOf(warnings);
  }

  /** Throws when any error was found. */
  void throwIfAny() {
    if (!errors.isEmpty()) throw new ConfigException(errors, warnings, null);
  }
}
