package io.vnpu.kube.hami.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.kube.errors.Causes;
import io.vnpu.kube.hami.cleanup.LiveAllocations;
import io.vnpu.kube.hami.cleanup.LiveAllocationsUnavailableException;
import io.vnpu.kube.hami.codec.ContainerDevice;
import io.vnpu.kube.hami.codec.DevicesToAllocateCodec;
import io.vnpu.kube.hami.codec.HamiFormatException;
import io.vnpu.kube.hami.codec.HamiNames;
import io.vnpu.kube.hami.codec.RuntimeInfo;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LiveAllocations} from the API server: the pods bound to this node ({@code spec.nodeName},
 * listed by that field and by the {@code hami.io/vgpu-node} label) that have not ended, and the
 * NPUs their HAMi devices-allocated annotation names, with the vNPU template of each from the pod's
 * runtime info ({@code huawei.com/<commonWord>}). A pod whose annotation cannot be decoded counts
 * as live and holding nothing in particular; its vNPUs stay protected through its UID when this
 * agent created them.
 */
public final class BoundPodAllocations implements LiveAllocations {
  private static final Logger LOG = LoggerFactory.getLogger(BoundPodAllocations.class);

  private final KubernetesClient client;
  private final String nodeName;
  private final HamiNames names;
  private final DevicesToAllocateCodec codec;
  private final io.vnpu.kube.hami.codec.RuntimeInfoCodec runtimeInfo =
      new io.vnpu.kube.hami.codec.RuntimeInfoCodec();

  public BoundPodAllocations(
      KubernetesClient client, String nodeName, HamiNames names, DevicesToAllocateCodec codec) {
    this.client = Objects.requireNonNull(client, "client");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.names = Objects.requireNonNull(names, "names");
    this.codec = Objects.requireNonNull(codec, "codec");
  }

  @Override
  public Holders read() throws LiveAllocationsUnavailableException {
    List<Pod> pods;
    try {
      pods = NodePods.bound(client, nodeName);
    } catch (KubernetesClientException e) {
      throw new LiveAllocationsUnavailableException(
          "list pods bound to node " + nodeName + ": " + Causes.describe(e), e);
    }
    Set<String> uids = new HashSet<>();
    Set<String> npus = new HashSet<>();
    Map<String, Map<String, Integer>> templates = new HashMap<>();
    for (Pod p : pods) {
      if (NodePods.finished(p)) continue;
      uids.add(p.getMetadata().getUid());
      Map<String, String> ann = p.getMetadata().getAnnotations();
      String allocated = ann == null ? null : ann.get(names.devicesAllocated());
      if (allocated == null || allocated.isBlank()) continue;
      List<List<ContainerDevice>> containers;
      try {
        containers = codec.decode(allocated).containers();
      } catch (HamiFormatException e) {
        LOG.warn(
            "pod {}/{}: annotation {} = {}: {}",
            p.getMetadata().getNamespace(),
            p.getMetadata().getName(),
            names.devicesAllocated(),
            allocated,
            e.getMessage());
        continue;
      }
      // the template of each device, as the scheduler wrote it for the Allocate (empty: the whole
      // NPU, no vNPU); unreadable: unknown, so every vNPU of unknown owner on its NPUs is kept
      Map<String, RuntimeInfo> info = null;
      try {
        info =
            runtimeInfo.decode(
                names.runtimeInfo(), java.util.Optional.ofNullable(ann.get(names.runtimeInfo())));
      } catch (HamiFormatException e) {
        LOG.debug(
            "pod {}/{}: {}",
            p.getMetadata().getNamespace(),
            p.getMetadata().getName(),
            e.getMessage());
      }
      for (List<ContainerDevice> c : containers) {
        for (ContainerDevice d : c) {
          RuntimeInfo ri = info == null ? null : info.get(d.uuid());
          if (ri == null) {
            npus.add(d.uuid());
          } else if (!ri.temp().isEmpty()) {
            templates
                .computeIfAbsent(d.uuid(), k -> new HashMap<>())
                .merge(ri.temp(), 1, Integer::sum);
          }
        }
      }
    }
    return new Holders(uids, npus, templates);
  }
}
