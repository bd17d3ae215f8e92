package io.vnpu.kube.app;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The kubeconfig a command was told to use: {@code --kubeconfig FILE} (the DRA driver) or the
 * {@code KUBECONFIG} environment variable (every agent), checked before the command starts. A named
 * file that is missing, a directory, unreadable, not a kubeconfig or without a current context is
 * one line naming it: fabric8 alone falls back to the in-cluster configuration and then fails every
 * API call with "host name does not resolve", which does not point at the misspelt path. Nothing
 * named: fabric8's auto-configuration (in-cluster service account, {@code ~/.kube/config}).
 *
 * <p>{@code KUBECONFIG} is a {@code :}-separated list, as kubectl reads it: the files are merged,
 * the first file that sets a value or a map entry (a context, cluster or user of a name, the
 * current context) wins, so the current context is the first file's that names one; empty entries
 * are skipped. Unlike kubectl, a file of the list that does not exist is an error naming it (a
 * misspelt entry would otherwise go unnoticed); a file of the list needs no current context of its
 * own, the merged configuration does. {@code --kubeconfig} names one file, as kubectl's does.
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
    Config config = parse(file.get(), "--kubeconfig " + file.get());
    requireCurrentContext(config, "--kubeconfig " + file.get());
    return config;
  }

  /**
   * The client configuration of {@code --kubeconfig FILE} when given, else of the files {@code
   * KUBECONFIG} in {@code env} names (merged as kubectl merges them), else auto-configuration.
   *
   * @throws IllegalArgumentException {@code --kubeconfig FILE: reason} or {@code KUBECONFIG=VALUE:
   *     FILE: reason}
   */
  public static Config load(Optional<Path> file, Map<String, String> env) {
    if (file.isPresent()) return load(file);
    String value = env.get("KUBECONFIG");
    if (value == null || value.isBlank()) return Config.autoConfigure(null);
    return merged(value);
  }

  /**
   * Checks the files {@code KUBECONFIG} names ({@code :}-separated, merged as kubectl merges them);
   * fabric8 reads them itself when the client is built.
   *
   * @return the problem, as {@code KUBECONFIG=VALUE: FILE: reason}, or empty when all is well
   */
  public static Optional<String> problem(Map<String, String> env) {
    String value = env.get("KUBECONFIG");
    if (value == null || value.isBlank()) return Optional.empty();
    try {
      merged(value);
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
    return Optional.empty();
  }

  /** The files of a {@code KUBECONFIG} value merged, each checked. */
  private static Config merged(String value) {
    List<io.fabric8.kubernetes.api.model.Config> files = new ArrayList<>();
    for (String entry : value.split(File.pathSeparator)) {
      if (entry.isBlank()) continue;
      String label = "KUBECONFIG=" + value + (value.equals(entry) ? "" : ": " + entry);
      Path file = Path.of(entry);
      checkFile(file, label);
      try {
        // fabric8's own reader, which records the file so that its relative paths resolve
        // against its directory
        files.add(KubeConfigUtils.parseConfig(file.toFile()));
      } catch (RuntimeException e) {
        throw notAKubeconfig(label, e);
      }
    }
    String label = "KUBECONFIG=" + value;
    if (files.isEmpty()) throw new IllegalArgumentException(label + ": names no file");
    Config config = Config.empty();
    try {
      // kubectl's rules: the first file that sets a value or map entry wins
      KubeConfigUtils.merge(
          config, null, files.toArray(io.fabric8.kubernetes.api.model.Config[]::new));
    } catch (RuntimeException e) {
      throw notAKubeconfig(label, e);
    }
    requireCurrentContext(config, label);
    return config;
  }

  private static void checkFile(Path file, String label) {
    if (!Files.exists(file)) throw new IllegalArgumentException(label + ": no such file");
    if (Files.isDirectory(file)) {
      throw new IllegalArgumentException(label + ": is a directory, not a kubeconfig file");
    }
    if (!Files.isReadable(file)) throw new IllegalArgumentException(label + ": not readable");
  }

  private static Config parse(Path file, String label) {
    checkFile(file, label);
    try {
      return Config.fromKubeconfig(file.toFile());
    } catch (RuntimeException e) {
      throw notAKubeconfig(label, e);
    }
  }

  private static IllegalArgumentException notAKubeconfig(String label, RuntimeException e) {
    String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return new IllegalArgumentException(
        label + ": not a kubeconfig file: " + why.lines().findFirst().orElse(why));
  }

  private static void requireCurrentContext(Config config, String label) {
    if (config.getCurrentContext() == null) {
      throw new IllegalArgumentException(
          label + ": not a kubeconfig file, or its current-context names no context");
    }
  }
}
