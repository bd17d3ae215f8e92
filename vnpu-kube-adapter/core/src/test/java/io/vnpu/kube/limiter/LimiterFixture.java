package io.vnpu.kube.limiter;

import java.io.IOException;
import java.nio.file.Path;

/** The real limiter from the native build, installed into a test's host directory. */
public final class LimiterFixture {
  private LimiterFixture() {}

  /** {@code libvnpu.so} of the native build ({@code vnpu.native.dir}, set by surefire). */
  public static Path nativeLibrary() {
    String dir = System.getProperty("vnpu.native.dir", System.getenv("VNPU_NATIVE_DIR"));
    if (dir == null) throw new IllegalStateException("system property vnpu.native.dir is not set");
    return Path.of(dir).resolve(LimiterFiles.LIBRARY);
  }

  /** Installs the native build's limiter into {@code hostDir} (hami-vnpu-core layout). */
  public static LimiterFiles installInto(Path hostDir) throws IOException {
    LimiterFiles files = LimiterFiles.hami(hostDir);
    try {
      new LimiterInstaller(files, ElfSharedObject.thisMachine()).install(nativeLibrary());
    } catch (LimiterUnavailableException e) {
      throw new IllegalStateException("native build has no usable limiter: " + e.getMessage(), e);
    }
    return files;
  }
}
