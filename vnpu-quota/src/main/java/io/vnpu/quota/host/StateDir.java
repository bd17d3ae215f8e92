package io.vnpu.quota.host;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where the CLI keeps the host's slices, so that {@code vnpu top} finds every region the {@code
 * vnpu run}s on this host created.
 *
 * <p>Resolution order: the {@code --state-dir} flag; env {@code VNPU_STATE_DIR}; {@code
 * $XDG_RUNTIME_DIR/vnpu} when that directory exists; {@code /run/vnpu} for root; {@code
 * /tmp/vnpu-<uid>} otherwise.
 *
 * @param root the directory (created on first use)
 */
public record StateDir(Path root) {

  /** Env variable overriding the state directory. */
  public static final String ENV = "VNPU_STATE_DIR";

  /**
   * Resolves the state directory.
   *
   * @param flag the {@code --state-dir} value, or null
   * @param env the process environment
   * @param uid the real user id of this process
   */
  public static StateDir resolve(Path flag, Map<String, String> env, int uid) {
    if (flag != null) return new StateDir(flag.toAbsolutePath());
    String v = env.get(ENV);
    if (v != null && !v.isBlank()) return new StateDir(Path.of(v).toAbsolutePath());
    String xdg = env.get("XDG_RUNTIME_DIR");
    if (xdg != null && !xdg.isBlank() && Files.isDirectory(Path.of(xdg))) {
      return new StateDir(Path.of(xdg, "vnpu"));
    }
    if (uid == 0) return new StateDir(Path.of("/run/vnpu"));
    return new StateDir(Path.of("/tmp", "vnpu-" + uid));
  }

  /** Directory holding one sub-directory per slice. */
  public Path slices() {
    return root.resolve("slices");
  }

  /** Directory of the per-physical-device compute registry files. */
  public Path registry() {
    return root.resolve("registry");
  }
}
