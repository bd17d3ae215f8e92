package io.vnpu.api.config;

import java.util.List;
import java.util.Objects;

/**
 * A successfully loaded configuration together with the warnings found while loading it (unknown
 * keys, values HAMi would read differently).
 *
 * @param value the configuration
 * @param warnings every warning, in discovery order; empty when the file is clean
 * @param <T> {@link DeviceConfig} or {@link NodeConfig}
 */
public record Loaded<T>(T value, List<ConfigProblem> warnings) {
  public Loaded {
    Objects.requireNonNull(value, "value");
    warnings = List.copyOf(warnings);
  }
}
