package io.vnpu.api.fault.recovery;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * A training job's share of this node as the recovery sees it.
 *
 * @param namespace the job's namespace
 * @param name the job name: the pod label {@code volcano.sh/job-name} (Volcano jobs) or {@code
 *     training.kubeflow.org/job-name} (Ascend Operator); names its ConfigMaps {@code
 *     reset-config-<name>} and {@code fault-config-<name>}
 * @param ranks logic ID of each chip the job's pods hold on this node → its rank ID in the job
 * @param pods the job's pods on this node ({@code namespace/name})
 */
public record TrainingJob(
    String namespace, String name, Map<Integer, Integer> ranks, Set<String> pods) {
  public TrainingJob {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    ranks = Map.copyOf(new TreeMap<>(ranks));
    pods = Set.copyOf(pods);
  }

  /** {@code namespace/name}. */
  public String key() {
    return namespace + "/" + name;
  }
}
