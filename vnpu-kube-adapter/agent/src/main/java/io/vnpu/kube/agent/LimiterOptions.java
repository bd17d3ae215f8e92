package io.vnpu.kube.agent;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the node agent finds the limiter in its image and where it installs it on the host.
 *
 * @param assetsDir directory in the agent's image holding {@code libvnpu.so} ({@code
 *     --limiter-assets}, else env {@code HAMI_VNPU_ASSETS_PATH}, else {@value #DEFAULT_ASSETS})
 * @param hostDir host directory soft-sliced containers mount, mounted into the agent at the same
 *     path ({@code --limiter-dir}, default {@value #DEFAULT_HOST_DIR})
 * @param install {@code --install-limiter} (default true): install at start; when false an operator
 *     provides the files and the agent only verifies them
 */
public record LimiterOptions(Path assetsDir, Path hostDir, boolean install) {
  /** hami-vnpu-core's asset directory baked into the image (protocol spec section 4.4). */
  public static final String DEFAULT_ASSETS = io.vnpu.kube.limiter.LimiterFiles.HAMI_ASSETS_DIR;

  /** hami-vnpu-core's host directory. */
  public static final String DEFAULT_HOST_DIR = "/usr/local/hami-vnpu-core";

  public LimiterOptions {
    Objects.requireNonNull(assetsDir, "assetsDir");
    Objects.requireNonNull(hostDir, "hostDir");
  }

  /** The defaults: upstream asset and host directories, install on. */
  public static LimiterOptions defaults() {
    return new LimiterOptions(Path.of(DEFAULT_ASSETS), Path.of(DEFAULT_HOST_DIR), true);
  }
}
