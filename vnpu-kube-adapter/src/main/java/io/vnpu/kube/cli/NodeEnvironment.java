package io.vnpu.kube.cli;

import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.DcmiException;
import io.vnpu.dcmi.DcmiLibraryLocator;
import io.vnpu.dcmi.DcmiLibrarySource;
import io.vnpu.dcmi.sim.BundledSimulator;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Which node the CLI commands ({@code devices}, {@code run}, {@code top}, {@code demo}) talk to: the
 * installed Ascend driver, or the simulated node bundled in the native build directory
 * ({@code vnpu.native.dir}, set by {@code ./vnpu}) when no driver is installed or a simulator
 * profile is asked for.
 */
public final class NodeEnvironment {
  /** System property naming the native build directory. */
  public static final String NATIVE_DIR_PROPERTY = "vnpu.native.dir";

  /**
   * The chosen node.
   *
   * @param library   libdcmi.so to load
   * @param simulated true for the bundled simulator
   * @param profile   simulator profile to use, or null to keep the simulator's current one
   */
  public record Selection(DcmiLibrarySource library, boolean simulated, String profile) {}

  private final DcmiLibraryLocator locator;
  private final Optional<Path> nativeDir;

  /**
   * @param locator   finds an installed or explicitly configured driver
   * @param nativeDir native build directory holding the simulator, if known
   */
  public NodeEnvironment(DcmiLibraryLocator locator, Optional<Path> nativeDir) {
    this.locator = locator;
    this.nativeDir = nativeDir;
  }

  /** This JVM's locator and {@value #NATIVE_DIR_PROPERTY} (or env VNPU_NATIVE_DIR). */
  public static NodeEnvironment system() {
    String dir = System.getProperty(NATIVE_DIR_PROPERTY);
    if (dir == null || dir.isBlank()) {
      dir = System.getenv("VNPU_NATIVE_DIR");
    }
    return new NodeEnvironment(DcmiLibraryLocator.system(),
        dir == null || dir.isBlank() ? Optional.empty() : Optional.of(Path.of(dir)));
  }

  /**
   * Chooses the node: a simulator profile forces the simulator; an explicitly configured library
   * must exist; else the installed driver; else the bundled simulator.
   *
   * @param simProfile simulator profile asked for, or null
   * @throws DcmiException when neither a driver nor the simulator is available (lists the paths)
   * @throws IllegalArgumentException when {@code simProfile} is not a built-in profile
   */
  public Selection select(String simProfile) {
    if (simProfile != null) {
      String canonical = BundledSimulator.canonicalProfile(simProfile)
          .orElseThrow(() -> new IllegalArgumentException("unknown simulator profile '"
              + simProfile + "'; built-in: " + String.join(", ", BundledSimulator.PROFILES)));
      return simulator(canonical);
    }
    if (locator.explicitlyConfigured()) {
      return new Selection(locator.locate(null), false, null);
    }
    Optional<DcmiLibrarySource> installed = locator.findInstalled();
    if (installed.isPresent()) {
      return new Selection(installed.get(), false, null);
    }
    return simulator(null);
  }

  private Selection simulator(String profile) {
    Path lib = nativeDir.map(d -> d.resolve("libdcmi.so").toAbsolutePath())
        .orElseThrow(() -> missing("the bundled simulator needs system property "
            + NATIVE_DIR_PROPERTY + " (./vnpu sets it)"));
    if (!lib.toFile().isFile()) {
      throw missing("bundled simulator not built: " + lib + " (run make in native/)");
    }
    return new Selection(new DcmiLibrarySource(lib, "bundled simulator", List.of(lib)), true,
        profile);
  }

  private DcmiException missing(String why) {
    try {
      locator.locate(null);
      return new DcmiException("dlopen", -99999, why);
    } catch (DcmiException noDriver) {
      return new DcmiException("dlopen", -99999, noDriver.getMessage() + "; " + why, noDriver);
    }
  }

  /**
   * Opens the node; for the simulator, points it at the profile and prints one line on
   * {@code err} saying so.
   *
   * @throws DcmiException when loading or {@code dcmi_init} fails
   */
  public DcmiDeviceManager open(Selection selection, PrintWriter err) {
    if (selection.simulated()) {
      Path dir = selection.library().path().getParent();
      BundledSimulator sim = new BundledSimulator(dir);
      sim.configure(selection.profile(), null);
      err.println("vnpu: no Ascend driver in use; using the bundled simulated node (profile "
          + sim.profile() + ", state " + sim.root() + ", " + selection.library().path() + ")");
      err.flush();
    }
    return DcmiDeviceManager.open(selection.library());
  }
}
