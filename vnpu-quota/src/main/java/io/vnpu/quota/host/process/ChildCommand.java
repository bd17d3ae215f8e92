package io.vnpu.quota.host.process;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A command to run under supervision.
 *
 * @param argv program and arguments, at least the program
 * @param environment variables set (added or replaced) on top of this process's environment
 * @param workingDirectory directory to run in, null = this process's current directory
 */
public record ChildCommand(
    List<String> argv, Map<String, String> environment, Path workingDirectory) {

  public ChildCommand {
    argv = List.copyOf(Objects.requireNonNull(argv, "argv"));
    environment = Map.copyOf(Objects.requireNonNull(environment, "environment"));
    if (argv.isEmpty()) throw new IllegalArgumentException("argv must name a program");
  }
}
