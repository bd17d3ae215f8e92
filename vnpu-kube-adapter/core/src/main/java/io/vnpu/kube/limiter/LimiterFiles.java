package io.vnpu.kube.limiter;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the limiter lives on the host and how a container sees it.
 *
 * @param hostDir host directory holding {@value #LIBRARY} and {@value #PRELOAD} (as the agent sees
 *     it; the agent mounts it at the host path)
 * @param containerLibraryPath absolute path of {@value #LIBRARY} inside a soft-sliced container,
 *     the single line of {@value #PRELOAD}
 */
public record LimiterFiles(Path hostDir, String containerLibraryPath) {
  /** File name of the limiter library. */
  public static final String LIBRARY = "libvnpu.so";

  /** File name of the preload list mounted at {@code /etc/ld.so.preload} in the container. */
  public static final String PRELOAD = "ld.so.preload";

  /** Container path of the preload list: where the dynamic loader reads it, in every backend. */
  public static final String CONTAINER_PRELOAD = "/etc/" + PRELOAD;

  /** File name of a container's quota region in its own directory, in every backend. */
  public static final String REGION_FILE = "vnpu_local_shmem";

  /**
   * Container path of a container's own region directory in this project's backends (DRA,
   * MindCluster soft share); the HAMi backend keeps upstream's {@code /hami-vnpu-shmem}.
   */
  public static final String CONTAINER_REGION_DIR = "/vnpu-shmem";

  /** Where the agent images carry the limiter to install (hami-vnpu-core's assets directory). */
  public static final String HAMI_ASSETS_DIR = "/usr/local/hami-vnpu-core-assets";

  /** hami-vnpu-core's host directory (protocol spec section 4.4). */
  public static final Path HAMI_HOST_DIR = Path.of("/usr/local/hami-vnpu-core");

  /**
   * hami-vnpu-core's container path of the library: the host directory is mounted at {@code
   * /hami-vnpu-core}.
   */
  public static final String HAMI_CONTAINER_LIBRARY = "/hami-vnpu-core/" + LIBRARY;

  public LimiterFiles {
    Objects.requireNonNull(hostDir, "hostDir");
    Objects.requireNonNull(containerLibraryPath, "containerLibraryPath");
    if (!containerLibraryPath.startsWith("/") || containerLibraryPath.contains("\n")) {
      throw new IllegalArgumentException(
          "container library path must be one absolute path: " + containerLibraryPath);
    }
  }

  /**
   * The hami-vnpu-core layout in {@code hostDir}: the container loads {@value
   * #HAMI_CONTAINER_LIBRARY}.
   */
  public static LimiterFiles hami(Path hostDir) {
    return new LimiterFiles(hostDir, HAMI_CONTAINER_LIBRARY);
  }

  /** {@code <hostDir>/libvnpu.so}. */
  public Path library() {
    return hostDir.resolve(LIBRARY);
  }

  /** {@code <hostDir>/ld.so.preload}. */
  public Path preload() {
    return hostDir.resolve(PRELOAD);
  }

  /** Exact content of {@value #PRELOAD}: the container library path and a newline. */
  public byte[] preloadContent() {
    return (containerLibraryPath + "\n").getBytes(StandardCharsets.US_ASCII);
  }
}
