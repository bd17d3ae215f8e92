package io.vnpu.kube.app;

import io.fabric8.kubernetes.client.Config;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The kubeconfig a command was told to use: {@code --kubeconfig FILE} (the DRA driver) or the
 * {@code KUBECONFIG} environment variable (every agent), checked before the command starts. A named
 * file that is missing, a directory, unreadable, not a kubeconfig or without a current context is
 * one line naming it: fabric8 alone falls back to the in-cluster configuration and then fails every
 * API call with "host name does not resolve", which does not point at the misspelt path. Nothing
 * named: fabric8's auto-configuration (in-cluster service account, {@code ~/.kube/config}).
 */
public final class KubeconfigFile {
  private KubeconfigFile() {}

  /**
   * The client configuration of {@code --kubeconfig FILE}, or auto-configuration without one. Paths
   * inside the file (certificates, keys) resolve against its directory, as kubectl does.
   *
   * @throws IllegalArgumentException {@code --kubeconfig FILE: reason}
   */
  public static Config load(Optional<Path> file) {
    if (file.isEmpty()) return Config.autoConfigure(null);
    return parse(file.get(), "--kubeconfig " + file.get());
  }

  /**
   * Checks every file {@code KUBECONFIG} names ({@code :}-separated, as kubectl reads it); fabric8
   * reads them itself when the client is built.
   *
   * @return the problem, as {@code KUBECONFIG=VALUE: FILE: reason}, or empty when all is well
   */
  public static Optional<String> problem(Map<String, String> env) {
    String value = env.get("KUBECONFIG");
    if (value == null || value.isBlank()) return Optional.empty();
    for (String entry : value.split(File.pathSeparator)) {
      if (entry.isBlank()) continue;
      Path file = Path.of(entry);
      String label = "KUBECONFIG=" + value + (value.equals(entry) ? "" : ": " + entry);
      try {
        parse(file, label);
      } catch (IllegalArgumentException e) {
        return Optional.of(e.getMessage());
      }
    }
    return Optional.empty();
  }

  private static Config parse(Path file, String label) {
    if (!Files.exists(file)) throw new IllegalArgumentException(label + ": no such file");
    if (Files.isDirectory(file)) {
      throw new IllegalArgumentException(label + ": is a directory, not a kubeconfig file");
    }
    if (!Files.isReadable(file)) throw new IllegalArgumentException(label + ": not readable");
    Config config;
    try {
      config = Config.fromKubeconfig(file.toFile());
    } catch (RuntimeException e) {
      String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new IllegalArgumentException(
          label + ": not a kubeconfig file: " + why.lines().findFirst().orElse(why));
    }
    if (config.getCurrentContext() == null) {
      throw new IllegalArgumentException(
          label + ": not a kubeconfig file, or its current-context names no context");
    }
    return config;
  }
}
