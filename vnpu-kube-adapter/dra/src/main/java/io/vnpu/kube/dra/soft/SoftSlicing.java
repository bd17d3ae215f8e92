package io.vnpu.kube.dra.soft;

import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.limiter.LimiterGate;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where soft shares live on the node and how a container reaches them.
 *
 * <p>Host side: {@code <regionRoot>/<claim UID>-<request>/vnpu_local_shmem} is the quota region
 * of one request of a claim (one entry per device of the request, in
 * {@code ASCEND_VISIBLE_DEVICES} order); {@code <registryDir>/npu<phy>.reg} are the per-NPU compute
 * registries this plugin registers every share in. Both lie in the plugin's data directory, on one
 * file system (the agents keep a hard link to each registered region beside the registry directory,
 * which no container sees; the registry itself holds nothing of any container).
 *
 * <p>Container side (CDI mounts): the request's region directory at {@value #CONTAINER_REGION_DIR}
 * (read-write: the limiter keeps its slots in the region), the limiter's directory at the parent of
 * {@link LimiterFiles#containerLibraryPath()} and {@value #CONTAINER_LD_SO_PRELOAD} (read-only),
 * the registry directory at its host path (read-only; the region names it, so the path must be the
 * same inside and outside).
 *
 * @param regionRoot  host directory of the per-request region directories; this plugin's alone
 * @param registryDir host directory of the compute registries
 * @param limiter     the limiter's host directory and container path
 * @param gate        asked before every soft share is prepared: a container is never told it is
 *                    limited while the limiter files are missing or broken
 */
public record SoftSlicing(Path regionRoot, Path registryDir, LimiterFiles limiter,
    LimiterGate gate) {
  /** Container path of the request's region directory. */
  public static final String CONTAINER_REGION_DIR = LimiterFiles.CONTAINER_REGION_DIR;
  /** File name of the quota region in its directory. */
  public static final String REGION_FILE = LimiterFiles.REGION_FILE;
  /** Container path of the preload list. */
  public static final String CONTAINER_LD_SO_PRELOAD = LimiterFiles.CONTAINER_PRELOAD;

  public SoftSlicing {
    Objects.requireNonNull(regionRoot, "regionRoot");
    Objects.requireNonNull(registryDir, "registryDir");
    Objects.requireNonNull(limiter, "limiter");
    Objects.requireNonNull(gate, "gate");
  }

  /** Regions in {@code <dataDir>/regions}, registries in {@code <dataDir>/compute}. */
  public static SoftSlicing inDataDir(Path dataDir, LimiterFiles limiter, LimiterGate gate) {
    return new SoftSlicing(dataDir.resolve("regions"), dataDir.resolve("compute"), limiter, gate);
  }

  /** The region directory of {@code request} of claim {@code claimUid}. */
  public Path regionDir(String claimUid, String request) {
    if (claimUid.isEmpty() || request.isEmpty() || (claimUid + request).indexOf('/') >= 0
        || claimUid.startsWith(".")) {
      throw new IllegalArgumentException("claim UID " + claimUid + " and request " + request
          + " do not make a directory name");
    }
    return regionRoot.resolve(claimUid + "-" + request);
  }

  /** Container path of the region file: {@code /vnpu-shmem/vnpu_local_shmem}. */
  public static String containerRegionFile() {
    return CONTAINER_REGION_DIR + "/" + REGION_FILE;
  }
}
