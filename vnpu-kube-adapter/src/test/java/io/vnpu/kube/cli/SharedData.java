package io.vnpu.kube.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The real HAMi files of the shared directory: system property {@code vnpu.shared.dir}, or, when
 * that does not exist (a git worktree nested one level deeper than the main checkout), the nearest
 * {@code shared} directory beside an ancestor of the working directory.
 */
final class SharedData {
  private static final String DATA = "data/hami-ascend-device-plugin";

  private SharedData() {}

  static Path hamiFile(String name) {
    Path p = dataDir().resolve(name);
    if (!Files.isRegularFile(p)) throw new IllegalStateException("missing shared file " + p);
    return p;
  }

  private static Path dataDir() {
    String prop = System.getProperty("vnpu.shared.dir");
    if (prop != null && Files.isDirectory(Path.of(prop).resolve(DATA))) {
      return Path.of(prop).resolve(DATA);
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("shared").resolve(DATA);
      if (Files.isDirectory(candidate)) return candidate;
    }
    throw new IllegalStateException("no " + DATA + " under vnpu.shared.dir=" + prop
        + " nor beside any parent of " + Path.of("").toAbsolutePath());
  }
}
