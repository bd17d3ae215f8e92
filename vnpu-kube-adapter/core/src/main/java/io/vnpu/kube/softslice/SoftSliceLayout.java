package io.vnpu.kube.softslice;

import io.vnpu.api.slice.Mount;
import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.quota.env.LimiterEnv;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where a node's soft slices live on the host and what a container sees of them: one directory per
 * slice under {@code regionRoot} ({@link #dirOf}) holding its quota region {@value
 * LimiterFiles#REGION_FILE}, the per-NPU compute registries {@code npu<phy>.reg} in {@code
 * registryHostDir}, and the limiter ({@link LimiterFiles}). Both host directories are this agent's
 * alone; only a slice's own directory and the registries (read-only) are mounted, and they lie on
 * one file system (the agents keep a hard link to each registered region beside the registry
 * directory, which no container sees; the registry itself holds nothing of any container).
 *
 * @param regionRoot host directory of the per-slice directories; never mounted whole
 * @param registryHostDir host directory of the compute registries
 * @param containerRegionDir container path of the slice's own directory (read-write)
 * @param containerRegistryDir container path of the registry directory (read-only); every region
 *     names it, so the limiter finds its NPU's registry there
 * @param limiter the limiter's host directory and the container path of the library (its directory
 *     is mounted read-only, the preload list at {@value LimiterFiles#CONTAINER_PRELOAD})
 */
public record SoftSliceLayout(
    Path regionRoot,
    Path registryHostDir,
    String containerRegionDir,
    String containerRegistryDir,
    LimiterFiles limiter) {
  /** HAMi's container path of the slice's own directory (hami-vnpu-core v1.4.0). */
  public static final String HAMI_CONTAINER_REGION_DIR = "/hami-vnpu-shmem";

  /** HAMi's container path of the shared (per-card registry) directory. */
  public static final String HAMI_CONTAINER_REGISTRY_DIR = "/hami-shared-region";

  public SoftSliceLayout {
    Objects.requireNonNull(regionRoot, "regionRoot");
    Objects.requireNonNull(registryHostDir, "registryHostDir");
    Objects.requireNonNull(containerRegionDir, "containerRegionDir");
    Objects.requireNonNull(containerRegistryDir, "containerRegistryDir");
    Objects.requireNonNull(limiter, "limiter");
    for (String p : new String[] {containerRegionDir, containerRegistryDir}) {
      if (!p.startsWith("/") || p.indexOf('\0') >= 0 || p.indexOf('\n') >= 0) {
        throw new IllegalArgumentException("container path \"" + p + "\" is not one absolute path");
      }
    }
  }

  /**
   * HAMi's upstream container paths ({@value #HAMI_CONTAINER_REGION_DIR}, {@value
   * #HAMI_CONTAINER_REGISTRY_DIR}, the limiter at {@code /hami-vnpu-core}), with the host side
   * under {@code HOOK_PATH}: {@code <hookPath>/containers} and {@code <hookPath>/registry}.
   */
  public static SoftSliceLayout hamiUpstream(Path hookPath, LimiterFiles limiter) {
    return new SoftSliceLayout(
        hookPath.resolve("containers"),
        hookPath.resolve("registry"),
        HAMI_CONTAINER_REGION_DIR,
        HAMI_CONTAINER_REGISTRY_DIR,
        limiter);
  }

  /**
   * The one layout of this project's backends (MindCluster soft share, DRA soft shares): regions in
   * {@code <dataDir>/regions}, registries in {@code <dataDir>/compute}, mounted at the same path in
   * the container (so the registry path a region names needs no translation), the slice's directory
   * at {@value LimiterFiles#CONTAINER_REGION_DIR}.
   */
  public static SoftSliceLayout vnpu(Path dataDir, LimiterFiles limiter) {
    Path registry = dataDir.toAbsolutePath().normalize().resolve("compute");
    return new SoftSliceLayout(
        dataDir.resolve("regions"),
        registry,
        LimiterFiles.CONTAINER_REGION_DIR,
        registry.toString(),
        limiter);
  }

  /**
   * The one directory rule: the directory of slice {@code name} of owner {@code ownerUid} (a pod or
   * claim UID), {@code <regionRoot>/<ownerUid>_<name>}.
   *
   * @throws IllegalArgumentException when the UID or name is empty, or the directory name would
   *     contain a {@code /} or NUL or start with {@code .} (it could leave the root, or hide)
   */
  public Path dirOf(String ownerUid, String name) {
    Objects.requireNonNull(ownerUid, "ownerUid");
    Objects.requireNonNull(name, "name");
    String dir = ownerUid + "_" + name;
    if (ownerUid.isEmpty()
        || name.isEmpty()
        || dir.indexOf('/') >= 0
        || dir.indexOf('\0') >= 0
        || dir.startsWith(".")) {
      throw new IllegalArgumentException(
          "UID \"" + ownerUid + "\" and name \"" + name + "\" do not make a directory name");
    }
    return regionRoot.resolve(dir);
  }

  /** The owner UID of a directory name made by {@link #dirOf} (a UID has no {@code _}). */
  public static java.util.Optional<String> ownerOf(String dirName) {
    int sep = dirName.indexOf('_');
    if (sep <= 0 || sep == dirName.length() - 1) return java.util.Optional.empty();
    return java.util.Optional.of(dirName.substring(0, sep));
  }

  /** The slice name of a directory name made by {@link #dirOf}. */
  public static java.util.Optional<String> nameOf(String dirName) {
    int sep = dirName.indexOf('_');
    if (sep <= 0 || sep == dirName.length() - 1) return java.util.Optional.empty();
    return java.util.Optional.of(dirName.substring(sep + 1));
  }

  /** Container path of the region file. */
  public String containerRegionFile() {
    return containerRegionDir + "/" + LimiterFiles.REGION_FILE;
  }

  /** Container path of the limiter's directory: the parent of the library's container path. */
  public String containerLimiterDir() {
    return Path.of(limiter.containerLibraryPath()).getParent().toString();
  }

  /**
   * {@code NPU_LOCAL_SHM_PATH} (the region as the container sees it) and {@code NPU_MEM_QUOTA}
   * ({@link LimiterEnv}: whole MiB of entry 0's limit, rounded down).
   */
  public Map<String, String> env(long firstMemoryBytes) {
    return LimiterEnv.of(containerRegionFile(), firstMemoryBytes).variables();
  }

  /**
   * The mounts of a slice's container, in this order: the limiter's directory and the preload list
   * (read-only), the registries (read-only: nothing a container writes may reach what its
   * neighbours read), then its own directory (read-write: the limiter keeps its slots in the
   * region).
   */
  public List<Mount> mounts(Path dir) {
    List<Mount> m = new ArrayList<>(sharedMounts());
    m.add(regionMount(dir));
    return m;
  }

  /** The mounts of {@link #mounts} that are the same for every slice. */
  public List<Mount> sharedMounts() {
    return List.of(
        new Mount(containerLimiterDir(), limiter.hostDir().toString(), true),
        new Mount(LimiterFiles.CONTAINER_PRELOAD, limiter.preload().toString(), true),
        new Mount(containerRegistryDir, registryHostDir.toString(), true));
  }

  /** The slice's own directory, read-write, at {@link #containerRegionDir()}. */
  public Mount regionMount(Path dir) {
    return new Mount(containerRegionDir, dir.toString(), false);
  }
}
