package io.vnpu.kube.agent;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The real HAMi files of the shared directory: {@code <vnpu.shared.dir>/data/hami-ascend-device-plugin},
 * or, when that property points nowhere (a git worktree sits one level deeper than the main
 * checkout), the {@code shared} directory beside the nearest ancestor of the working directory.
 */
final class HamiData {
  private static final String DATA = "data/hami-ascend-device-plugin";

  private HamiData() {}

  static Path dir() {
    String prop = System.getProperty("vnpu.shared.dir");
    if (prop != null && Files.isDirectory(Path.of(prop).resolve(DATA))) {
      return Path.of(prop).resolve(DATA).toAbsolutePath().normalize();
    }
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      Path candidate = d.resolve("shared").resolve(DATA);
      if (Files.isDirectory(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException("no " + DATA + " under vnpu.shared.dir=" + prop
        + " nor beside any ancestor of " + Path.of("").toAbsolutePath());
  }

  static Path file(String name) {
    Path p = dir().resolve(name);
    if (!Files.isRegularFile(p)) {
      throw new IllegalStateException("missing shared file " + p);
    }
    return p;
  }
}
