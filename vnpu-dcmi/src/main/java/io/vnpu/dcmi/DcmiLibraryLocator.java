package io.vnpu.dcmi;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Finds {@code libdcmi.so}: an explicit path (API argument, system property {@value #PROPERTY},
 * environment {@value #ENV}) wins and must exist; otherwise every directory of {@code
 * LD_LIBRARY_PATH} and then the standard driver locations (vnpu DCMI spec sections 1.1 and 4) are
 * examined. A failure lists every path tried.
 */
public final class DcmiLibraryLocator {
  /** System property naming the library file. */
  public static final String PROPERTY = "vnpu.dcmi.library";

  /** Environment variable naming the library file. */
  public static final String ENV = "VNPU_DCMI_LIBRARY";

  /** Where Ascend drivers install libdcmi.so, in the order examined. */
  public static final List<Path> DRIVER_LOCATIONS =
      List.of(
          Path.of("/usr/local/Ascend/driver/lib64/driver/libdcmi.so"),
          Path.of("/usr/local/Ascend/driver/lib64/libdcmi.so"),
          Path.of("/usr/local/Ascend/driver/lib64/common/libdcmi.so"),
          Path.of("/usr/local/dcmi/libdcmi.so"));

  private final Function<String, String> properties;
  private final Function<String, String> environment;
  private final List<Path> driverLocations;

  /**
   * @param properties system-property lookup (e.g. {@code System::getProperty})
   * @param environment environment lookup (e.g. {@code System::getenv})
   * @param driverLocations standard locations to examine after the explicit ones
   */
  public DcmiLibraryLocator(
      Function<String, String> properties,
      Function<String, String> environment,
      List<Path> driverLocations) {
    this.properties = properties;
    this.environment = environment;
    this.driverLocations = List.copyOf(driverLocations);
  }

  /** A locator over this JVM's system properties, environment and the standard locations. */
  public static DcmiLibraryLocator system() {
    return new DcmiLibraryLocator(System::getProperty, System::getenv, DRIVER_LOCATIONS);
  }

  /**
   * Resolves the library.
   *
   * @param explicit a path given through the API, or null
   * @throws DcmiException with code -99999 when no candidate exists; its message lists every path
   *     tried
   */
  public DcmiLibrarySource locate(Path explicit) {
    List<Path> tried = new ArrayList<>();
    Optional<DcmiLibrarySource> pinned = explicit(explicit, tried);
    if (pinned.isPresent()) {
      return pinned.get();
    }
    if (!tried.isEmpty()) {
      throw notFound(tried, "the explicitly configured library does not exist");
    }
    return findInstalled(tried).orElseThrow(() -> notFound(tried, "no Ascend driver installed?"));
  }

  /**
   * The installed driver's library, if any: LD_LIBRARY_PATH and the standard locations only
   * (explicit settings are not consulted).
   */
  public Optional<DcmiLibrarySource> findInstalled() {
    return findInstalled(new ArrayList<>());
  }

  /** True when an explicit library is configured through the property or the environment. */
  public boolean explicitlyConfigured() {
    return nonEmpty(properties.apply(PROPERTY)) || nonEmpty(environment.apply(ENV));
  }

  private Optional<DcmiLibrarySource> explicit(Path apiPath, List<Path> tried) {
    String prop = properties.apply(PROPERTY);
    String env = environment.apply(ENV);
    Path path;
    String origin;
    if (apiPath != null) {
      path = apiPath;
      origin = "explicit path";
    } else if (nonEmpty(prop)) {
      path = Path.of(prop);
      origin = "system property " + PROPERTY;
    } else if (nonEmpty(env)) {
      path = Path.of(env);
      origin = "environment " + ENV;
    } else {
      return Optional.empty();
    }
    Path abs = path.toAbsolutePath();
    tried.add(abs);
    return Files.isRegularFile(abs)
        ? Optional.of(new DcmiLibrarySource(abs, origin, tried))
        : Optional.empty();
  }

  private Optional<DcmiLibrarySource> findInstalled(List<Path> tried) {
    List<Path> candidates = new ArrayList<>();
    String ldPath = environment.apply("LD_LIBRARY_PATH");
    if (nonEmpty(ldPath)) {
      for (String dir : ldPath.split(":")) {
        if (!dir.isEmpty()) {
          candidates.add(Path.of(dir, "libdcmi.so"));
        }
      }
    }
    candidates.addAll(driverLocations);
    for (Path candidate : candidates) {
      Path abs = candidate.toAbsolutePath();
      if (tried.contains(abs)) {
        continue;
      }
      tried.add(abs);
      if (Files.isRegularFile(abs)) {
        String origin = driverLocations.contains(candidate) ? "driver location" : "LD_LIBRARY_PATH";
        return Optional.of(new DcmiLibrarySource(abs, origin, tried));
      }
    }
    return Optional.empty();
  }

  private static DcmiException notFound(List<Path> tried, String hint) {
    StringBuilder sb = new StringBuilder("libdcmi.so not found (" + hint + "); tried:");
    for (Path p : tried) {
      sb.append(' ').append(p);
    }
    return new DcmiException("dlopen", DcmiErrorCode.LIBRARY_NOT_LOADED.code(), sb.toString());
  }

  private static boolean nonEmpty(String s) {
    return s != null && !s.isBlank();
  }
}
