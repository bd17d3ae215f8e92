package io.vnpu.kube.cli.run;

import io.vnpu.dcmi.DcmiNodeSelector;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The environment a workload of a slice runs with: the limiter preloaded and pointed at the
 * slice's quota region (the HAMi device plugin's contract: {@code NPU_LOCAL_SHM_PATH},
 * {@code NPU_MEM_QUOTA} in MiB, {@code NPU_PRIORITY}), the NPU made the only visible one, and on the
 * bundled simulated node the simulated CANN libraries and the simulator's host state.
 *
 * @param limiter the limiter library
 * @param region the slice's quota region file
 * @param memoryLimitBytes quota in bytes (0 = unlimited)
 * @param weight AI-core weight
 * @param logicId the NPU's logic ID
 * @param simulator the simulated node's settings, or null on a real host
 */
public record WorkloadEnvironment(
    Path limiter, Path region, long memoryLimitBytes, int weight, int logicId,
    DcmiNodeSelector.SimulatedNode simulator) {

  public WorkloadEnvironment {
    Objects.requireNonNull(limiter, "limiter");
    Objects.requireNonNull(region, "region");
  }

  /**
   * The variables to set on top of {@code inherited} (values that are search lists, such as
   * {@code LD_PRELOAD}, keep the inherited entries after ours).
   */
  public Map<String, String> variables(Map<String, String> inherited) {
    Map<String, String> v = new LinkedHashMap<>();
    v.put("LD_PRELOAD", prepend(limiter.toString(), inherited.get("LD_PRELOAD"), ":"));
    v.put("NPU_LOCAL_SHM_PATH", region.toString());
    v.put("NPU_MEM_QUOTA", Long.toString(memoryLimitBytes / (1024 * 1024)));
    v.put("NPU_PRIORITY", Integer.toString(weight));
    // CANN renumbers the visible devices from 0, matching the region's single device entry
    v.put("ASCEND_RT_VISIBLE_DEVICES", Integer.toString(logicId));
    if (simulator != null) {
      v.put("LD_LIBRARY_PATH", prepend(simulator.libraryDir().toString(), inherited.get("LD_LIBRARY_PATH"), ":"));
      v.put(DcmiNodeSelector.SimulatedNode.ROOT_ENV, simulator.root().toString());
      v.put(DcmiNodeSelector.SimulatedNode.PROFILE_ENV, simulator.profile());
    }
    return v;
  }

  private static String prepend(String first, String rest, String sep) {
    return rest == null || rest.isBlank() ? first : first + sep + rest;
  }
}
