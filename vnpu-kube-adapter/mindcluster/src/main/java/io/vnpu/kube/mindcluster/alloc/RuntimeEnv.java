package io.vnpu.kube.mindcluster.alloc;

/**
 * Environment variables of the Ascend Docker Runtime contract (spec section 3.13) and of section
 * 3.9.
 */
public final class RuntimeEnv {
  /** Comma-joined phy IDs, or the vNPU ID with {@link #RUNTIME_OPTIONS} {@code VIRTUAL}. */
  public static final String VISIBLE_DEVICES = "ASCEND_VISIBLE_DEVICES";

  /** {@code ""} for chips, {@code VIRTUAL} for vNPUs. */
  public static final String RUNTIME_OPTIONS = "ASCEND_RUNTIME_OPTIONS";

  /** The value of {@link #RUNTIME_OPTIONS} for vNPU IDs. */
  public static final String VIRTUAL = "VIRTUAL";

  /** {@code True} on 310B (symbolic links allowed). */
  public static final String ALLOW_LINK = "ASCEND_ALLOW_LINK";

  /** Set to {@code True} in the device plugin's own environment when the runtime is installed. */
  public static final String ASCEND_DOCKER_RUNTIME = "ASCEND_DOCKER_RUNTIME";

  private RuntimeEnv() {}
}
