package io.vnpu.kube.cli;

import io.vnpu.dcmi.DcmiNodeSelector;
import io.vnpu.kube.cli.node.DcmiNodeAccess;
import io.vnpu.kube.cli.node.NodeAccess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Builds the production collaborators of the CLI commands (their no-argument constructors use it).
 */
final class CliServices {

  private CliServices() {}

  /** The node through the DCMI binding, or the bundled simulated node. */
  static NodeAccess nodeAccess() {
    return new DcmiNodeAccess(DcmiNodeSelector.system());
  }

  /**
   * The native build directory: system property {@code vnpu.native.dir}, else env VNPU_NATIVE_DIR.
   */
  static Optional<Path> nativeDir() {
    return DcmiNodeSelector.nativeDir(System::getProperty, System::getenv);
  }

  /** The real user id of this process. */
  static int uid() {
    try {
      return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    } catch (IOException | UnsupportedOperationException e) {
      throw new IllegalStateException("cannot read the uid of this process from /proc/self", e);
    }
  }
}
