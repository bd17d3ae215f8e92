package io.vnpu.kube.hami.alloc;

import io.vnpu.quota.env.LimiterEnv;

/** Environment variable names of the Allocate response (protocol spec section 4). */
public final class AscendEnv {
  /** Comma-joined phy IDs (or vNPU IDs with {@link #RUNTIME_OPTIONS} {@code VIRTUAL}). */
  public static final String VISIBLE_DEVICES = "ASCEND_VISIBLE_DEVICES";

  /** Template the Ascend Docker Runtime creates a vNPU from. */
  public static final String VNPU_SPECS = "ASCEND_VNPU_SPECS";

  /** {@code VIRTUAL} makes the Ascend Docker Runtime treat the visible devices as vNPU IDs. */
  public static final String RUNTIME_OPTIONS = "ASCEND_RUNTIME_OPTIONS";

  /** Container memory quota in MiB (hami-vnpu-core). */
  public static final String NPU_MEM_QUOTA = LimiterEnv.MEM_QUOTA;

  /** Compute weight, the AI-core percent (hami-vnpu-core). */
  public static final String NPU_PRIORITY = LimiterEnv.PRIORITY;

  /** Per-card cross-pod registry file (hami-vnpu-core). */
  public static final String NPU_GLOBAL_SHM_PATH = "NPU_GLOBAL_SHM_PATH";

  /** Per-container quota region file. */
  public static final String NPU_LOCAL_SHM_PATH = LimiterEnv.REGION_PATH;

  private AscendEnv() {}
}
