package io.vnpu.dcmi;

import io.vnpu.dcmi.sim.BundledSimulator;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Driver-or-simulator selection, the one place that decides which {@code libdcmi.so} a process
 * uses: the installed Ascend driver (or an explicit library), or the simulated node bundled in the
 * native build directory. Every command and node agent opens its node through this class; nothing
 * else touches the simulator.
 *
 * <p>Rules, in order: a simulator profile asked for forces the simulator; an explicit library (API
 * argument, {@value DcmiLibraryLocator#PROPERTY}, {@value DcmiLibraryLocator#ENV}) must exist; else
 * the installed driver; else, only with {@link Fallback#SIMULATOR_WHEN_NO_DRIVER}, the simulator.
 */
public final class DcmiNodeSelector {
  /** System property naming the native build directory. */
  public static final String NATIVE_DIR_PROPERTY = "vnpu.native.dir";

  /** Environment variable naming the native build directory. */
  public static final String NATIVE_DIR_ENV = "VNPU_NATIVE_DIR";

  /** Built-in simulator profiles ({@code native/sim-common/sim_host.c}). */
  public static final List<String> SIMULATOR_PROFILES = BundledSimulator.PROFILES;

  /** What to do when no driver is installed and no simulator profile was asked for. */
  public enum Fallback {
    /** Fail, listing every path tried (node agents: never simulate unless asked). */
    NONE,
    /** Use the bundled simulated node (the CLI on a laptop). */
    SIMULATOR_WHEN_NO_DRIVER
  }

  /**
   * The chosen node.
   *
   * @param library libdcmi.so to load and why
   * @param simulated true for the bundled simulator
   * @param profile simulator profile to use (canonical name), or null to keep the current one
   */
  public record Selection(DcmiLibrarySource library, boolean simulated, String profile) {
    public Selection {
      Objects.requireNonNull(library, "library");
    }
  }

  /**
   * The bundled simulated node a process uses; workloads that should see the same node get these.
   *
   * @param libraryDir directory of the simulated {@code libdcmi.so}, {@code libascendcl.so} and
   *     {@code libruntime.so}
   * @param root the simulator's host state ({@code VNPU_SIM_ROOT})
   * @param profile host profile ({@code VNPU_SIM_PROFILE})
   */
  public record SimulatedNode(Path libraryDir, Path root, String profile) {
    /** Environment variable naming the simulator's host profile. */
    public static final String PROFILE_ENV = BundledSimulator.PROFILE_ENV;

    /** Environment variable naming the simulator's state directory. */
    public static final String ROOT_ENV = BundledSimulator.ROOT_ENV;

    public SimulatedNode {
      Objects.requireNonNull(libraryDir, "libraryDir");
      Objects.requireNonNull(root, "root");
      Objects.requireNonNull(profile, "profile");
    }
  }

  /**
   * An open node: the driver port, the library it runs on and, on the simulated node, its settings.
   * Closing it closes the driver.
   */
  public record OpenNode(
      DcmiDeviceManager deviceManager, DcmiLibrarySource library, Optional<SimulatedNode> simulator)
      implements AutoCloseable {
    public OpenNode {
      Objects.requireNonNull(deviceManager, "deviceManager");
      Objects.requireNonNull(library, "library");
      Objects.requireNonNull(simulator, "simulator");
    }

    @Override
    public void close() {
      deviceManager.close();
    }
  }

  private final DcmiLibraryLocator locator;
  private final Optional<Path> nativeDir;

  /**
   * @param locator finds an installed or explicitly configured driver
   * @param nativeDir native build directory holding the simulator, if known
   */
  public DcmiNodeSelector(DcmiLibraryLocator locator, Optional<Path> nativeDir) {
    this.locator = Objects.requireNonNull(locator, "locator");
    this.nativeDir = Objects.requireNonNull(nativeDir, "nativeDir").map(Path::toAbsolutePath);
  }

  /**
   * This JVM's locator and native directory ({@value #NATIVE_DIR_PROPERTY}, else env {@value
   * #NATIVE_DIR_ENV}).
   */
  public static DcmiNodeSelector system() {
    return new DcmiNodeSelector(
        DcmiLibraryLocator.system(), nativeDir(System::getProperty, System::getenv));
  }

  /**
   * The native build directory named by {@value #NATIVE_DIR_PROPERTY}, else env {@value
   * #NATIVE_DIR_ENV}.
   */
  public static Optional<Path> nativeDir(
      Function<String, String> properties, Function<String, String> environment) {
    String dir = properties.apply(NATIVE_DIR_PROPERTY);
    if (dir == null || dir.isBlank()) dir = environment.apply(NATIVE_DIR_ENV);
    return dir == null || dir.isBlank()
        ? Optional.empty()
        : Optional.of(Path.of(dir).toAbsolutePath());
  }

  /** The built-in simulator profile a name denotes ("910A x8" = "910Ax8"), if any. */
  public static Optional<String> canonicalProfile(String name) {
    return BundledSimulator.canonicalProfile(name);
  }

  /**
   * The simulated host's state directory, where its device nodes live: {@code $VNPU_SIM_ROOT} when
   * set ({@code rootEnv}), else the per-user default.
   */
  public static Path simulatedRoot(String rootEnv) {
    return BundledSimulator.rootOf(rootEnv);
  }

  /**
   * As {@link #select(Optional, Optional, Fallback)} with no explicit library, falling back to the
   * simulator.
   */
  public Selection select(String simProfile) {
    return select(
        Optional.empty(), Optional.ofNullable(simProfile), Fallback.SIMULATOR_WHEN_NO_DRIVER);
  }

  /**
   * Chooses the node.
   *
   * @param library an explicit {@code libdcmi.so} (e.g. {@code --dcmi-library}); must exist
   * @param simProfile simulator profile asked for (forces the simulator)
   * @param fallback whether a node without a driver falls back to the simulator
   * @throws DcmiException when neither a driver nor the simulator is available (lists the paths)
   * @throws IllegalArgumentException when {@code simProfile} is not a built-in profile
   */
  public Selection select(Optional<Path> library, Optional<String> simProfile, Fallback fallback) {
    if (simProfile.isPresent()) {
      String asked = simProfile.get();
      String canonical =
          canonicalProfile(asked)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "unknown simulator profile '"
                              + asked
                              + "'; built-in: "
                              + String.join(", ", SIMULATOR_PROFILES)));
      return simulator(canonical);
    }
    if (library.isPresent() || locator.explicitlyConfigured() || fallback == Fallback.NONE) {
      return new Selection(locator.locate(library.orElse(null)), false, null);
    }
    Optional<DcmiLibrarySource> installed = locator.findInstalled();
    if (installed.isPresent()) {
      return new Selection(installed.get(), false, null);
    }
    return simulator(null);
  }

  private Selection simulator(String profile) {
    Path lib =
        nativeDir
            .map(d -> d.resolve("libdcmi.so"))
            .orElseThrow(
                () ->
                    missing(
                        "the bundled simulator needs system property "
                            + NATIVE_DIR_PROPERTY
                            + " (./vnpu sets it) or env "
                            + NATIVE_DIR_ENV));
    if (!lib.toFile().isFile()) {
      throw missing(
          "bundled simulator not built: "
              + lib
              + " (build native/ first: mvn -B -pl native compile)");
    }
    return new Selection(
        new DcmiLibrarySource(lib, "bundled simulator", List.of(lib)), true, profile);
  }

  private DcmiException missing(String why) {
    try {
      locator.locate(null);
      return new DcmiException("dlopen", DcmiErrorCode.LIBRARY_NOT_LOADED.code(), why);
    } catch (DcmiException noDriver) {
      return new DcmiException(
          "dlopen",
          DcmiErrorCode.LIBRARY_NOT_LOADED.code(),
          // the locator's reason without its own "dlopen failed: ..." prefix: said once, one line
          (noDriver.context() == null || noDriver.context().isEmpty()
                  ? noDriver.getMessage()
                  : noDriver.context())
              + "; "
              + why,
          noDriver);
    }
  }

  /**
   * Opens the chosen node. On the simulated node, first points this process's simulator at the
   * profile and state directory and says so in one line through {@code notice}.
   *
   * @param simRoot simulator state directory to use, or empty for the simulator's current one
   * @throws DcmiException when loading or {@code dcmi_init} fails
   */
  public OpenNode open(Selection selection, Optional<Path> simRoot, Consumer<String> notice) {
    Optional<SimulatedNode> simulated = Optional.empty();
    if (selection.simulated()) {
      Path dir = selection.library().path().getParent();
      BundledSimulator sim = new BundledSimulator(dir);
      sim.configure(selection.profile(), simRoot.orElse(null));
      simulated = Optional.of(new SimulatedNode(dir, sim.root(), sim.profile()));
      notice.accept(
          "vnpu: no Ascend driver in use; using the bundled simulated node (profile "
              + sim.profile()
              + ", state "
              + sim.root()
              + ", "
              + selection.library().path()
              + ")");
    }
    return new OpenNode(
        DcmiDeviceManager.open(selection.library()), selection.library(), simulated);
  }
}
