package io.vnpu.quota;

import java.nio.file.Files;
import java.nio.file.Path;

/** Locates native/build (system property vnpu.native.dir set by surefire). */
public final class NativeDir {
  private NativeDir() {}

  public static Path path() {
    String dir = System.getProperty("vnpu.native.dir", System.getenv("VNPU_NATIVE_DIR"));
    if (dir == null) throw new IllegalStateException("vnpu.native.dir is not set");
    return Path.of(dir);
  }

  /** A native build product; fails the test if it was not built. */
  public static Path program(String relative) {
    Path p = path().resolve(relative);
    if (!Files.isExecutable(p)) throw new IllegalStateException("native program missing: " + p);
    return p;
  }
}
