package io.vnpu.dcmi;

import java.nio.file.Path;

/** {@link SimNode} for tests outside this package. */
public final class SimNodeAccess {
  private final SimNode node;

  public SimNodeAccess(String profile, Path root) {
    this.node = new SimNode(profile, root);
  }

  public DcmiDeviceManager open() {
    return node.open();
  }

  /** vnpu-sim-ctl with these arguments; returns its stdout. */
  public String ctl(String... args) {
    return node.ctl(args);
  }
}
