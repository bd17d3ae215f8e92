package io.vnpu.quota.host;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds the limiter {@code libvnpu.so} a workload gets preloaded: the {@code --limiter} flag, env
 * {@value #ENV}, the native build directory ({@code vnpu.native.dir}, set by {@code ./vnpu}), then
 * the install locations.
 */
public final class LimiterLibrary {

  /** Env variable naming the limiter library. */
  public static final String ENV = "VNPU_LIMITER";

  /** Where an installed limiter lives. */
  public static final List<Path> INSTALLED =
      List.of(Path.of("/usr/local/vnpu/lib/libvnpu.so"), Path.of("/usr/lib/vnpu/libvnpu.so"));

  private LimiterLibrary() {}

  /**
   * The limiter to preload.
   *
   * @param flag the {@code --limiter} value, or null
   * @param env value of {@value #ENV}, or null
   * @param nativeDir the native build directory, if known
   * @throws IllegalStateException listing every path tried when none exists
   */
  public static Path locate(Path flag, String env, Optional<Path> nativeDir) {
    List<Path> tried = new ArrayList<>();
    if (flag != null) return mustExist(flag, "--limiter");
    if (env != null && !env.isBlank()) return mustExist(Path.of(env), ENV);
    nativeDir.map(d -> d.resolve("libvnpu.so")).ifPresent(tried::add);
    tried.addAll(INSTALLED);
    for (Path p : tried) if (Files.isRegularFile(p)) return p.toAbsolutePath();
    throw new IllegalStateException(
        "limiter libvnpu.so not found; tried "
            + tried
            + " (build native/ with make, or give --limiter PATH or "
            + ENV
            + ")");
  }

  private static Path mustExist(Path p, String source) {
    if (!Files.isRegularFile(p))
      throw new IllegalStateException("limiter " + p + " (from " + source + ") does not exist");
    return p.toAbsolutePath();
  }
}
