package io.vnpu.api.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Reads a configuration file's text, turning I/O failures into a {@link ConfigException}. */
final class ConfigFiles {
  private ConfigFiles() {}

  static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw failure(file, "no such file", e);
    } catch (IOException e) {
      throw failure(file, "cannot read: " + e, e);
    }
  }

  private static ConfigException failure(Path file, String message, Exception cause) {
    return new ConfigException(
        List.of(new ConfigProblem(file.toString(), 0, "", Optional.empty(), message)), cause);
  }
}
