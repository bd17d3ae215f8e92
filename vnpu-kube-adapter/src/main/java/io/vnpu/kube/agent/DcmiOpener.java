package io.vnpu.kube.agent;

import io.vnpu.api.spi.DeviceManager;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.DcmiLibraryLocator;
import io.vnpu.dcmi.DcmiLibrarySource;
import io.vnpu.dcmi.sim.BundledSimulator;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Opens {@link DcmiDeviceManager}: the real driver ({@code --dcmi-library} or the standard
 * locations), or with {@code --simulate} the simulated {@code libdcmi.so} from the native build
 * directory (system property {@code vnpu.native.dir}, env {@code VNPU_NATIVE_DIR}, else
 * {@code native/build}). The simulator is used only when asked for.
 */
public final class DcmiOpener implements DeviceManagerOpener {

  private final Function<String, String> properties;
  private final Function<String, String> environment;

  public DcmiOpener(Function<String, String> properties, Function<String, String> environment) {
    this.properties = properties;
    this.environment = environment;
  }

  /** An opener over this JVM's system properties and environment. */
  public static DcmiOpener system() {
    return new DcmiOpener(System::getProperty, System::getenv);
  }

  @Override
  public DeviceManager open(NodeAgentOptions options) {
    return open(options.dcmiLibrary(), options.simulate());
  }

  /**
   * Opens the simulated node for {@code simulate} (a profile), else the driver's library
   * ({@code dcmiLibrary} or the standard locations).
   *
   * @throws RuntimeException naming the library or the missing simulator when opening fails
   */
  public DcmiDeviceManager open(Optional<Path> dcmiLibrary, Optional<String> simulate) {
    if (simulate.isPresent()) {
      Path nativeDir = nativeDir();
      BundledSimulator sim = new BundledSimulator(nativeDir);
      sim.configure(simulate.get(), null);
      Path lib = sim.library().orElseThrow(() -> new IllegalStateException("--simulate: "
          + nativeDir.resolve("libdcmi.so") + " does not exist; build native/ first "
          + "(mvn -B -pl native compile)"));
      return DcmiDeviceManager.open(new DcmiLibrarySource(lib, "bundled simulator (--simulate)",
          List.of(lib)));
    }
    DcmiLibraryLocator locator = new DcmiLibraryLocator(properties, environment,
        DcmiLibraryLocator.DRIVER_LOCATIONS);
    return DcmiDeviceManager.open(locator.locate(dcmiLibrary.orElse(null)));
  }

  /** The simulator's state directory for this process (device files of created vNPUs live there). */
  public Path simulatorRoot() {
    return new BundledSimulator(nativeDir()).root();
  }

  private Path nativeDir() {
    String dir = properties.apply("vnpu.native.dir");
    if (dir == null || dir.isBlank()) {
      dir = environment.apply("VNPU_NATIVE_DIR");
    }
    return Path.of(dir == null || dir.isBlank() ? "native/build" : dir).toAbsolutePath();
  }
}
