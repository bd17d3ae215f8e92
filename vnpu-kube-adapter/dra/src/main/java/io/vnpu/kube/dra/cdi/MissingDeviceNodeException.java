package io.vnpu.kube.dra.cdi;

import java.io.IOException;
import java.nio.file.Path;

/** A device node a CDI spec needs does not exist on the host. */
public final class MissingDeviceNodeException extends IOException {
  private final Path hostPath;

  public MissingDeviceNodeException(Path hostPath) {
    super(hostPath + ": device node does not exist on this host");
    this.hostPath = hostPath;
  }

  /** The host path that is missing. */
  public Path hostPath() {
    return hostPath;
  }
}
