package io.vnpu.kube.mindcluster.volcano;

import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.limiter.LimiterGate;
import io.vnpu.kube.resource.QuotaRegionFactory;
import java.nio.file.Path;
import java.util.Objects;

/**
 * How this node enforces MindCluster soft sharing itself: our quota region per container, read by
 * our limiter ({@code libvnpu.so}) preloaded in the container, instead of Huawei's vCANN-RT, and
 * the per-NPU compute registries that make the AI-core quotas hold among the containers of one NPU.
 *
 * @param regionRoot  host directory of the per-container directories
 *                    ({@code <regionRoot>/<podUID>_<first kubelet device ID>}); it must be this
 *                    agent's alone and is never mounted whole into a container
 * @param limiter     where the limiter lies on the host and where the container loads it
 * @param gate        checked before every soft-share Allocate
 * @param regions     creates the region file
 * @param registryDir host directory of the compute registries ({@code npu<phyId>.reg}), written by
 *                    this agent only and mounted read-only at {@value #CONTAINER_REGISTRY_DIR}; on
 *                    the file system (and the mount) of {@code regionRoot}: each registration
 *                    hard-links the container's region next to the registry
 */
public record SoftShareLimiter(Path regionRoot, LimiterFiles limiter, LimiterGate gate, QuotaRegionFactory regions,
    Path registryDir) {
  /** Container path of the container's own directory (holding its region). */
  public static final String CONTAINER_REGION_DIR = LimiterFiles.CONTAINER_REGION_DIR;
  /** Container path of the preload list. */
  public static final String CONTAINER_LD_SO_PRELOAD = LimiterFiles.CONTAINER_PRELOAD;
  /** Name of the region file in the container's directory. */
  public static final String REGION_FILE = LimiterFiles.REGION_FILE;
  /** Container path of the compute-registry directory (read-only), the registry directory of every region. */
  public static final String CONTAINER_REGISTRY_DIR = "/vnpu-registry";
  /** Name of the default registry directory beside the region root. */
  public static final String REGISTRY_DIR = "vnpu-registry";

  public SoftShareLimiter {
    Objects.requireNonNull(regionRoot, "regionRoot");
    Objects.requireNonNull(limiter, "limiter");
    Objects.requireNonNull(gate, "gate");
    Objects.requireNonNull(regions, "regions");
    Objects.requireNonNull(registryDir, "registryDir");
  }

  /** With the registries in {@value #REGISTRY_DIR} beside {@code regionRoot}. */
  public SoftShareLimiter(Path regionRoot, LimiterFiles limiter, LimiterGate gate, QuotaRegionFactory regions) {
    this(regionRoot, limiter, gate, regions, regionRoot.resolveSibling(REGISTRY_DIR));
  }
}
