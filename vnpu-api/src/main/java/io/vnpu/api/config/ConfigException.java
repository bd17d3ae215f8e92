package io.vnpu.api.config;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A configuration file could not be loaded. Carries every error found, not only the first, and the
 * warnings found on the way (a misspelt key shows up as an unknown-key warning next to the
 * missing-key error it causes). The message has one error per line in {@link
 * ConfigProblem#toString()} form.
 */
public class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient List<ConfigProblem> errors;
  private final transient List<ConfigProblem> warnings;

  public ConfigException(List<ConfigProblem> errors) {
    this(errors, List.of(), null);
  }

  public ConfigException(List<ConfigProblem> errors, Throwable cause) {
    this(errors, List.of(), cause);
  }

  public ConfigException(
      List<ConfigProblem> errors, List<ConfigProblem> warnings, Throwable cause) {
    super(render(errors), cause);
    this.errors = List.copyOf(errors);
    this.warnings = List.copyOf(warnings);
  }

  /** Every error, in discovery order (at least one). */
  public List<ConfigProblem> errors() {
    return errors;
  }

  /** Warnings found before loading failed, in discovery order. */
  public List<ConfigProblem> warnings() {
    return warnings;
  }

  private static String render(List<ConfigProblem> errors) {
    Objects.requireNonNull(errors, "errors");
    if (errors.isEmpty()) throw new IllegalArgumentException("a ConfigException needs an error");
    return errors.stream().map(ConfigProblem::toString).collect(Collectors.joining("\n"));
  }
}
