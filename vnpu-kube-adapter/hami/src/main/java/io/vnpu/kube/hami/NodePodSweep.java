package io.vnpu.kube.hami;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vnpu.kube.hami.bind.StaleBindReaper;
import io.vnpu.kube.hami.codec.HamiNames;
import io.vnpu.kube.softslice.SoftSlices;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One periodic look at the pods of this node (at start-up and every {@code period}): removes the
 * container directories of deleted and finished pods ({@link SoftSlices#removeFinished}) and ends
 * binds whose pod is terminal or gone ({@link StaleBindReaper}).
 */
public final class NodePodSweep {
  private final KubernetesClient client;
  private final String nodeName;
  private final SoftSlices dirs;
  private final StaleBindReaper binds;
  private final Duration period;

  public NodePodSweep(
      KubernetesClient client,
      String nodeName,
      SoftSlices dirs,
      StaleBindReaper binds,
      Duration period) {
    this.client = Objects.requireNonNull(client, "client");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.dirs = Objects.requireNonNull(dirs, "dirs");
    this.binds = Objects.requireNonNull(binds, "binds");
    this.period = Objects.requireNonNull(period, "period");
  }

  /** Result of one round: directories removed and bind actions taken. */
  public record Outcome(List<Path> removedDirs, List<String> bindActions) {}

  /** The round as {@link PeriodicTask} runs it. */
  public Duration round() throws IOException {
    runOnce();
    return period;
  }

  /**
   * One round. The directories are listed before the pods (see {@link SoftSlices#removeFinished}).
   *
   * @throws IOException when the container root cannot be listed
   * @throws io.fabric8.kubernetes.client.KubernetesClientException when pods cannot be listed;
   *     nothing is removed then
   */
  public Outcome runOnce() throws IOException {
    List<String> entries = dirs.entries();
    List<Pod> pods = podsOnNode();
    Map<String, String> phases = new HashMap<>();
    for (Pod p : pods) {
      String uid = p.getMetadata().getUid();
      String phase =
          p.getStatus() == null || p.getStatus().getPhase() == null
              ? "Unknown"
              : p.getStatus().getPhase();
      if (uid != null) phases.put(uid, phase);
    }
    List<Path> removed = dirs.removeFinished(entries, phases);
    return new Outcome(removed, binds.runOnce(pods));
  }

  private List<Pod> podsOnNode() {
    Map<String, Pod> pods = new LinkedHashMap<>();
    // as PodFinder: by field spec.nodeName, and by the scheduler's label where field selectors fail
    for (Pod p :
        client.pods().inAnyNamespace().withField("spec.nodeName", nodeName).list().getItems()) {
      pods.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p);
    }
    for (Pod p :
        client.pods().inAnyNamespace().withLabel(HamiNames.VGPU_NODE, nodeName).list().getItems()) {
      pods.putIfAbsent(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p);
    }
    return pods.values().stream()
        .filter(p -> nodeName.equals(p.getSpec() == null ? null : p.getSpec().getNodeName()))
        .toList();
  }
}
