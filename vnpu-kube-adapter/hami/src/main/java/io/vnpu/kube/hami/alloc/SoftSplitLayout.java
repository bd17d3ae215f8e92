package io.vnpu.kube.hami.alloc;

import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.softslice.SoftSliceLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Host paths of a soft-split (hami-vnpu-core) node (protocol spec sections 4.3, 5.1). Container
 * paths are fixed by hami-vnpu-core and are constants here.
 *
 * @param npuSmi host {@code npu-smi} binary, mounted at the same path
 * @param ascendInstallInfo host {@code /etc/ascend_install.info}
 * @param driverLibDir host {@code /usr/local/Ascend/driver/lib64/driver}
 * @param driverVersionInfo host {@code /usr/local/Ascend/driver/version.info}
 * @param limiterDir host directory holding {@code libvnpu.so} and {@code ld.so.preload}
 * @param sharedRegionDir host directory of the per-card global registries
 * @param hookPath {@code HOOK_PATH}: root of the per-container {@code containers/} dirs; it must
 *     lie outside {@code limiterDir} and {@code sharedRegionDir}, which are mounted into every
 *     soft-split container (a region there would show every tenant's pod UIDs, PIDs and usage to
 *     every other tenant)
 */
public record SoftSplitLayout(
    String npuSmi,
    String ascendInstallInfo,
    String driverLibDir,
    String driverVersionInfo,
    String limiterDir,
    String sharedRegionDir,
    Path hookPath) {
  /** Container path of the shared (per-card registry) directory. */
  public static final String CONTAINER_SHARED_REGION = SoftSliceLayout.HAMI_CONTAINER_REGISTRY_DIR;

  /** Container path of the per-container directory. */
  public static final String CONTAINER_SHMEM_DIR = SoftSliceLayout.HAMI_CONTAINER_REGION_DIR;

  /**
   * Default {@code HOOK_PATH} of this agent. Upstream uses the limiter directory {@code
   * /usr/local/hami-vnpu-core}, which every soft-split container sees; this one no container sees
   * (only each container's own directory is mounted, at {@link #CONTAINER_SHMEM_DIR}).
   */
  public static final String DEFAULT_HOOK_PATH = "/var/lib/vnpu/hami";

  /** Name of the per-container quota region file in that directory. */
  public static final String LOCAL_SHMEM_FILE = LimiterFiles.REGION_FILE;

  public SoftSplitLayout {
    Objects.requireNonNull(npuSmi, "npuSmi");
    Objects.requireNonNull(ascendInstallInfo, "ascendInstallInfo");
    Objects.requireNonNull(driverLibDir, "driverLibDir");
    Objects.requireNonNull(driverVersionInfo, "driverVersionInfo");
    Objects.requireNonNull(limiterDir, "limiterDir");
    Objects.requireNonNull(sharedRegionDir, "sharedRegionDir");
    Objects.requireNonNull(hookPath, "hookPath");
    Path hook = hookPath.toAbsolutePath().normalize();
    for (String shared : List.of(limiterDir, sharedRegionDir)) {
      Path s = Path.of(shared).toAbsolutePath().normalize();
      if (hook.startsWith(s) || s.startsWith(hook)) {
        throw new IllegalArgumentException(
            "HOOK_PATH = "
                + hookPath
                + ": overlaps "
                + shared
                + ", which is mounted into every soft-split container; per-container quota regions there"
                + " would be readable by every tenant (use a directory of its own, default "
                + DEFAULT_HOOK_PATH
                + ")");
      }
    }
  }

  /**
   * The upstream paths, with {@code HOOK_PATH} as given (default {@link #DEFAULT_HOOK_PATH}).
   *
   * @throws IllegalArgumentException when {@code hookPath} overlaps the limiter or shared directory
   */
  public static SoftSplitLayout upstream(Path hookPath) {
    return new SoftSplitLayout(
        "/usr/local/bin/npu-smi",
        "/etc/ascend_install.info",
        "/usr/local/Ascend/driver/lib64/driver",
        "/usr/local/Ascend/driver/version.info",
        "/usr/local/hami-vnpu-core",
        "/usr/local/hami-shared-region",
        hookPath);
  }

  /**
   * The same layout with the limiter in {@code dir} (host path, as the agent's {@code
   * --limiter-dir}).
   */
  public SoftSplitLayout withLimiterDir(String dir) {
    return new SoftSplitLayout(
        npuSmi, ascendInstallInfo, driverLibDir, driverVersionInfo, dir, sharedRegionDir, hookPath);
  }

  /**
   * The soft slices of this node as the one soft-slice mechanism sees them: HAMi's upstream
   * container paths, the host side under {@code HOOK_PATH}, the limiter in {@code limiterDir}.
   */
  public SoftSliceLayout slices() {
    return SoftSliceLayout.hamiUpstream(hookPath, LimiterFiles.hami(Path.of(limiterDir)));
  }

  /** Host directory holding every container's directory: {@code <HOOK_PATH>/containers}. */
  public Path containersRoot() {
    return slices().regionRoot();
  }

  /**
   * Host directory of the per-NPU compute registries ({@code npu<phyId>.reg}) this agent writes
   * when it creates the quota regions: {@code <HOOK_PATH>/registry}, mounted read-only at {@link
   * #CONTAINER_SHARED_REGION} in place of upstream's shared directory. It lies beside {@link
   * #containersRoot()} because each registration hard-links the container's region next to the
   * registry, which needs one file system and one mount.
   */
  public Path registryDir() {
    return slices().registryHostDir();
  }

  /**
   * Host directory of one container: {@code <HOOK_PATH>/containers/<podUID>_<containerName>}
   * ({@link SoftSliceLayout#dirOf}).
   *
   * @throws IllegalArgumentException when the pod UID or container name could leave {@link
   *     #containersRoot()} (a {@code /}, a NUL, a leading {@code .}, or an empty name)
   */
  public Path containerDir(String podUid, String containerName) {
    return slices().dirOf(podUid, containerName);
  }
}
