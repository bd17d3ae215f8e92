package io.vnpu.kube.agent;

import io.vnpu.api.health.HealthSource;
import io.vnpu.api.spi.DeviceManager;
import io.vnpu.dcmi.DcmiDeviceManager;
import io.vnpu.dcmi.DcmiLibraryLocator;
import io.vnpu.dcmi.DcmiNodeSelector;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the driver through {@link DcmiNodeSelector}: the real driver ({@code --dcmi-library} or the
 * standard locations), or with {@code --simulate} the simulated {@code libdcmi.so} from the native
 * build directory (system property {@code vnpu.native.dir}, env {@code VNPU_NATIVE_DIR}, else
 * {@code native/build}). A node agent never falls back to the simulator: only when asked.
 */
public final class DcmiOpener implements DeviceManagerOpener {
  private static final Logger LOG = LoggerFactory.getLogger(DcmiOpener.class);

  private final DcmiNodeSelector selector;

  public DcmiOpener(Function<String, String> properties, Function<String, String> environment) {
    Path nativeDir =
        DcmiNodeSelector.nativeDir(properties, environment)
            .orElse(Path.of("native/build").toAbsolutePath());
    this.selector =
        new DcmiNodeSelector(
            new DcmiLibraryLocator(properties, environment, DcmiLibraryLocator.DRIVER_LOCATIONS),
            Optional.of(nativeDir));
  }

  /** An opener over this JVM's system properties and environment. */
  public static DcmiOpener system() {
    return new DcmiOpener(System::getProperty, System::getenv);
  }

  @Override
  public DeviceManager open(NodeAgentOptions options) {
    return openDcmi(options.dcmiLibrary(), options.simulate());
  }

  /**
   * Opens the driver: {@code library} ({@code --dcmi-library}) or the standard locations, or the
   * simulated node of {@code simulate} ({@code --simulate}); never the simulator unless asked.
   *
   * @throws RuntimeException naming the library when it cannot be opened
   */
  public DcmiDeviceManager openDcmi(Optional<Path> library, Optional<String> simulate) {
    DcmiNodeSelector.Selection selection =
        selector.select(library, simulate, DcmiNodeSelector.Fallback.NONE);
    return selector.open(selection, Optional.empty(), LOG::info).deviceManager();
  }

  /**
   * The driver's {@link NodeHealth} monitor (separations in memory), started, polling every {@link
   * #HEALTH_PERIOD}; any other device manager gets live reads.
   */
  @Override
  public HealthSource openHealth(DeviceManager opened, NodeAgentOptions options) {
    if (!(opened instanceof DcmiDeviceManager dcmi)) {
      return DeviceManagerOpener.super.openHealth(opened, options);
    }
    return new NodeHealth(Clock.systemUTC()).started(dcmi, HEALTH_PERIOD);
  }

  /** Health poll period (MindCluster's {@code -listWatchPeriod} default). */
  public static final Duration HEALTH_PERIOD = NodeHealth.AGENT_PERIOD;
}
