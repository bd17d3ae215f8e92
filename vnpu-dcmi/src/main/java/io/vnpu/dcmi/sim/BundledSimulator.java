package io.vnpu.dcmi.sim;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The simulated Ascend node built from {@code native/} ({@code libdcmi.so} and {@code vnpu-sim-ctl}
 * in the native build directory). The simulator reads its host profile and state directory from the
 * process environment ({@value #PROFILE_ENV}, {@value #ROOT_ENV}; see {@code
 * native/include/vnpu_sim_host.h}) on every call, so this class sets them in this process through
 * libc {@code setenv} before the library is used. Test tooling and the CLI's fallback node only; a
 * real driver never reads these variables.
 */
public final class BundledSimulator {
  /** Host profile, e.g. {@code 910B3x8} (the simulator's default). */
  public static final String PROFILE_ENV = "VNPU_SIM_PROFILE";

  /** State directory shared by every process of the simulated host. */
  public static final String ROOT_ENV = "VNPU_SIM_ROOT";

  /** Built-in profiles of {@code native/sim-common/sim_host.c}. */
  public static final java.util.List<String> PROFILES =
      java.util.List.of(
          "910B3x8",
          "910B4x8",
          "910Ax8",
          "310P3x4",
          "300IDuox2",
          "A3x8",
          "A3Inferx8",
          "310PMixedx4",
          "300IA2x4");

  /** libc's environment functions. */
  interface LibC extends Library {
    int setenv(String name, String value, int overwrite);

    int unsetenv(String name);

    String getenv(String name);
  }

  private final Path nativeDir;
  private final LibC libc;

  /**
   * @param nativeDir the native build directory ({@code vnpu.native.dir})
   */
  public BundledSimulator(Path nativeDir) {
    this.nativeDir = nativeDir.toAbsolutePath();
    this.libc = Native.load("c", LibC.class);
  }

  /** The simulated {@code libdcmi.so}, if built. */
  public Optional<Path> library() {
    Path lib = nativeDir.resolve("libdcmi.so");
    return Files.isRegularFile(lib) ? Optional.of(lib) : Optional.empty();
  }

  /** The fault-injection tool {@code vnpu-sim-ctl}. */
  public Path ctl() {
    return nativeDir.resolve("vnpu-sim-ctl");
  }

  /**
   * Points the simulator of this process at a profile and a state directory.
   *
   * @param profile profile name, or null to keep the current one
   * @param root state directory, or null to keep the current one
   * @throws IllegalArgumentException when {@code profile} is not a built-in profile
   * @throws IllegalStateException when libc refuses the variable
   */
  public void configure(String profile, Path root) {
    if (profile != null) {
      String canonical =
          canonicalProfile(profile)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "unknown simulator profile '"
                              + profile
                              + "'; built-in: "
                              + String.join(", ", PROFILES)));
      set(PROFILE_ENV, canonical);
    }
    if (root != null) {
      set(ROOT_ENV, root.toAbsolutePath().toString());
    }
  }

  /**
   * The profile the simulator of this process uses now ({@value #PROFILE_ENV}, default 910B3x8).
   */
  public String profile() {
    String p = libc.getenv(PROFILE_ENV);
    return p == null || p.isEmpty() ? "910B3x8" : p;
  }

  /**
   * The state directory the simulator of this process uses now: {@value #ROOT_ENV}, else {@code
   * /tmp/vnpu-sim-<uid>} as {@code vnpu_sim_host.h} defines.
   */
  public Path root() {
    return rootOf(libc.getenv(ROOT_ENV));
  }

  /**
   * The state directory for a value of {@value #ROOT_ENV} (null or empty when unset): that path,
   * else {@code /tmp/vnpu-sim-<uid>} as {@code vnpu_sim_host.h} defines.
   */
  public static Path rootOf(String rootEnv) {
    if (rootEnv != null && !rootEnv.isEmpty()) {
      return Path.of(rootEnv);
    }
    try {
      Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
      return Path.of("/tmp/vnpu-sim-" + uid);
    } catch (java.io.IOException | UnsupportedOperationException e) {
      throw new IllegalStateException("cannot determine the uid for the default " + ROOT_ENV, e);
    }
  }

  /** The built-in profile a name denotes ("910A x8" = "910Ax8", "300I-Duo x2" = "300IDuox2"). */
  public static Optional<String> canonicalProfile(String name) {
    String key = name.replaceAll("[ _-]", "").toLowerCase(java.util.Locale.ROOT);
    return PROFILES.stream()
        .filter(p -> p.toLowerCase(java.util.Locale.ROOT).equals(key))
        .findFirst();
  }

  private void set(String name, String value) {
    if (libc.setenv(name, value, 1) != 0) {
      throw new IllegalStateException("setenv(" + name + ") failed");
    }
  }
}
