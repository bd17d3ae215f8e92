package io.vnpu.api.config;

import java.util.Objects;
import java.util.Optional;

/**
 * One finding (error or warning) in a configuration file, located by file, line and YAML path.
 *
 * <p>Rendered by {@link #toString()} as {@code FILE:LINE: PATH = VALUE: MESSAGE}, for example
 * {@code device-config.yaml:14: vnpus.configs[2].templates[1].memory = -5: must be > 0 MiB}; the
 * {@code = VALUE} part is left out when there is no value (a missing key), the {@code :LINE} part
 * when the line is unknown (0) and the {@code PATH} part when the problem concerns the whole file.
 *
 * @param file the file as the caller named it
 * @param line 1-based line in that file (for a ConfigMap manifest: the line in the manifest, not in
 *     the embedded document), or 0 when unknown
 * @param path YAML path inside the configuration document, e.g. {@code
 *     vnpus.configs[2].templates[1].memory}; empty for the whole document
 * @param value the offending value as written, empty when there is none
 * @param message what is wrong, and how to fix it where that is not obvious
 */
public record ConfigProblem(
    String file, int line, String path, Optional<String> value, String message) {
  public ConfigProblem {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(message, "message");
    if (line < 0) throw new IllegalArgumentException("line must be >= 0: " + line);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(file);
    if (line > 0) sb.append(':').append(line);
    sb.append(": ");
    if (!path.isEmpty()) {
      sb.append(path);
      value.ifPresent(v -> sb.append(" = ").append(v));
      sb.append(": ");
    }
    return sb.append(message).toString();
  }
}
