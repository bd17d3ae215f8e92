package io.vnpu.kube.hami;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.kube.hami.kube.NodePods;
import io.vnpu.kube.observe.SliceRef;
import io.vnpu.kube.observe.SliceSource;
import io.vnpu.kube.softslice.SoftSliceLayout;
import io.vnpu.kube.softslice.SoftSlices;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The soft slices of a HAMi node for the metrics: every {@code
 * <HOOK_PATH>/containers/<podUID>_<container>} directory holding a quota region whose pod still
 * runs on this node (listed by {@code spec.nodeName} and by the scheduler's {@code
 * hami.io/vgpu-node} label: {@link NodePods}). A pod deleted or in phase Succeeded/Failed is gone:
 * its directory is not listed, so its series disappear. When the API server cannot be asked, the
 * pods of the last successful list are used, so series do not flap.
 */
public final class HamiSliceSource implements SliceSource {
  private static final Logger LOG = LoggerFactory.getLogger(HamiSliceSource.class);

  private record PodName(String namespace, String name) {}

  private final KubernetesClient client;
  private final String nodeName;
  private final SoftSlices slices;
  private Map<String, PodName> lastPods = Map.of();

  public HamiSliceSource(KubernetesClient client, String nodeName, SoftSlices slices) {
    this.client = Objects.requireNonNull(client, "client");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.slices = Objects.requireNonNull(slices, "slices");
  }

  @Override
  public synchronized List<SliceRef> slices() {
    Map<String, PodName> pods = runningPods();
    return slices.slices(
        dir ->
            SoftSliceLayout.ownerOf(dir)
                .map(pods::get)
                .flatMap(
                    pod ->
                        SoftSliceLayout.nameOf(dir)
                            .map(c -> new SoftSlices.Owner(pod.namespace(), pod.name(), c))));
  }

  private Map<String, PodName> runningPods() {
    try {
      Map<String, PodName> pods = new HashMap<>();
      for (Pod p : NodePods.bound(client, nodeName)) {
        if (NodePods.finished(p)) continue;
        pods.put(
            p.getMetadata().getUid(),
            new PodName(p.getMetadata().getNamespace(), p.getMetadata().getName()));
      }
      lastPods = Map.copyOf(pods);
    } catch (KubernetesClientException e) {
      LOG.debug(
          "metrics: list pods on node {} failed, using the last list: {}",
          nodeName,
          e.getMessage());
    }
    return lastPods;
  }
}
