package io.vnpu.kube.dra.cdi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Turns a device path as the container sees it ({@code /dev/davinci3}) into a CDI device node by
 * looking at the host file under {@code devRoot} ({@code /dev} on a real host, the simulator's
 * device directory under {@code --simulate}). A character or block device gets its type and
 * major/minor numbers from {@code stat}; a regular file (a simulated host's stand-in) gets neither.
 * A missing host file is an error naming it: a spec without the node would start a container that
 * cannot reach its NPU.
 */
public final class DeviceNodeProbe {

  private static final Path DEV = Path.of("/dev");

  private final Path devRoot;

  /**
   * @param devRoot host directory holding the device files, normally {@code /dev}
   */
  public DeviceNodeProbe(Path devRoot) {
    this.devRoot = Objects.requireNonNull(devRoot, "devRoot").toAbsolutePath();
  }

  /** The host directory holding the device files. */
  public Path devRoot() {
    return devRoot;
  }

  /** Whether the host file for a container device path exists. */
  public boolean exists(String containerPath) {
    return Files.exists(hostPath(containerPath), LinkOption.NOFOLLOW_LINKS);
  }

  /**
   * The CDI node for {@code containerPath} (must be under {@code /dev}).
   *
   * @throws MissingDeviceNodeException naming the host path when it does not exist
   * @throws IOException when it cannot be examined
   */
  public CdiDeviceNode probe(String containerPath) throws IOException {
    return probe(containerPath, hostPath(containerPath));
  }

  /**
   * The CDI node for {@code containerPath} backed by the host file {@code host}.
   *
   * @throws MissingDeviceNodeException naming {@code host} when it does not exist
   * @throws IOException when it cannot be examined
   */
  public CdiDeviceNode probe(String containerPath, Path host) throws IOException {
    String hostPath = host.equals(Path.of(containerPath)) ? null : host.toString();
    try {
      String type = null;
      Long major = null;
      Long minor = null;
      if (Files.isRegularFile(host, LinkOption.NOFOLLOW_LINKS)) {
        return new CdiDeviceNode(containerPath, hostPath, null, null, null, "rwm");
      }
      int mode = (Integer) Files.getAttribute(host, "unix:mode", LinkOption.NOFOLLOW_LINKS);
      int fmt = mode & 0170000;
      if (fmt == 0020000 || fmt == 0060000) {
        type = fmt == 0020000 ? "c" : "b";
        long rdev = (Long) Files.getAttribute(host, "unix:rdev", LinkOption.NOFOLLOW_LINKS);
        major = major(rdev);
        minor = minor(rdev);
      } else {
        throw new IOException(
            host
                + ": not a device node or regular file (mode "
                + Integer.toOctalString(mode)
                + ")");
      }
      return new CdiDeviceNode(containerPath, hostPath, type, major, minor, "rwm");
    } catch (NoSuchFileException e) {
      throw new MissingDeviceNodeException(host);
    }
  }

  /** glibc's {@code gnu_dev_major}. */
  static long major(long rdev) {
    return ((rdev >>> 8) & 0xfffL) | ((rdev >>> 32) & 0xfffff000L);
  }

  /** glibc's {@code gnu_dev_minor}. */
  static long minor(long rdev) {
    return (rdev & 0xffL) | ((rdev >>> 12) & 0xffffff00L);
  }

  /** The host file of a container path under {@code /dev}. */
  public Path hostPath(String containerPath) {
    Path p = Path.of(containerPath);
    if (!p.isAbsolute() || !p.startsWith(DEV) || p.getNameCount() < 2) {
      throw new IllegalArgumentException("device path must be under /dev: " + containerPath);
    }
    return devRoot.resolve(DEV.relativize(p).toString());
  }
}
