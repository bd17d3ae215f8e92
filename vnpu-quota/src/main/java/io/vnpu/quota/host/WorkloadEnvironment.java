package io.vnpu.quota.host;

import io.vnpu.quota.env.LimiterEnv;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The environment a workload of a host slice runs with: the limiter preloaded and pointed at the
 * slice's quota region (the HAMi device plugin's contract: {@code NPU_LOCAL_SHM_PATH}, {@code
 * NPU_MEM_QUOTA} in MiB, {@code NPU_PRIORITY}), the NPU made the only visible one, and what the
 * node's runtime needs (on the bundled simulated node: the simulated CANN libraries and the
 * simulator's host state).
 *
 * @param limiter the limiter library
 * @param region the slice's quota region file
 * @param memoryLimitBytes quota in bytes (0 = unlimited); {@code NPU_MEM_QUOTA} gets it in MiB
 * @param weight AI-core weight ({@code NPU_PRIORITY})
 * @param logicId the NPU's logic ID ({@code ASCEND_RT_VISIBLE_DEVICES})
 * @param runtime what the node's CANN runtime needs
 */
public record WorkloadEnvironment(
    Path limiter,
    Path region,
    long memoryLimitBytes,
    int weight,
    int logicId,
    NodeRuntime runtime) {

  /**
   * What the node's CANN runtime needs beyond the slice.
   *
   * @param libraryDir directory to put first on {@code LD_LIBRARY_PATH}, if any
   * @param variables further variables, e.g. {@code VNPU_SIM_ROOT} and {@code VNPU_SIM_PROFILE}
   */
  public record NodeRuntime(Optional<Path> libraryDir, Map<String, String> variables) {
    /** A real host: the installed CANN, nothing to add. */
    public static final NodeRuntime INSTALLED = new NodeRuntime(Optional.empty(), Map.of());

    public NodeRuntime {
      Objects.requireNonNull(libraryDir, "libraryDir");
      variables = Map.copyOf(variables);
    }
  }

  public WorkloadEnvironment {
    Objects.requireNonNull(limiter, "limiter");
    Objects.requireNonNull(region, "region");
    Objects.requireNonNull(runtime, "runtime");
  }

  /**
   * The variables to set on top of {@code inherited} (values that are search lists, such as {@code
   * LD_PRELOAD}, keep the inherited entries after ours).
   */
  public Map<String, String> variables(Map<String, String> inherited) {
    Map<String, String> v = new LinkedHashMap<>();
    v.put("LD_PRELOAD", prepend(limiter.toString(), inherited.get("LD_PRELOAD")));
    // the host workload sees the host's paths; 0 MiB is an unlimited region, allowed here only
    v.putAll(LimiterEnv.of(region, memoryLimitBytes, weight).variables());
    // CANN renumbers the visible devices from 0, matching the region's single device entry
    v.put("ASCEND_RT_VISIBLE_DEVICES", Integer.toString(logicId));
    runtime
        .libraryDir()
        .ifPresent(
            d -> v.put("LD_LIBRARY_PATH", prepend(d.toString(), inherited.get("LD_LIBRARY_PATH"))));
    v.putAll(runtime.variables());
    return v;
  }

  private static String prepend(String first, String rest) {
    return rest == null || rest.isBlank() ? first : first + ":" + rest;
  }
}
