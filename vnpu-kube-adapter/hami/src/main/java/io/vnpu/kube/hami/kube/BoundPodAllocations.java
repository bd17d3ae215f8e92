package io.vnpu.kube.hami.kube;

import io.vnpu.kube.errors.Causes;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.kube.hami.codec.HamiNames;
import io.vnpu.kube.hami.cleanup.LiveAllocations;
import io.vnpu.kube.hami.cleanup.LiveAllocationsUnavailableException;
import io.vnpu.kube.hami.codec.ContainerDevice;
import io.vnpu.kube.hami.codec.DevicesToAllocateCodec;
import io.vnpu.kube.hami.codec.HamiFormatException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LiveAllocations} from the API server: the pods bound to this node
 * ({@code spec.nodeName}, listed by that field and by the {@code hami.io/vgpu-node} label) that have not ended, and the NPUs their HAMi devices-allocated annotation
 * names. A pod whose annotation cannot be decoded counts as live and holding nothing in particular;
 * its vNPUs stay protected through its UID when this agent created them.
 */
public final class BoundPodAllocations implements LiveAllocations {
  private static final Logger LOG = LoggerFactory.getLogger(BoundPodAllocations.class);

  private final KubernetesClient client;
  private final String nodeName;
  private final HamiNames names;
  private final DevicesToAllocateCodec codec;

  public BoundPodAllocations(KubernetesClient client, String nodeName, HamiNames names,
      DevicesToAllocateCodec codec) {
    this.client = Objects.requireNonNull(client, "client");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.names = Objects.requireNonNull(names, "names");
    this.codec = Objects.requireNonNull(codec, "codec");
  }

  @Override
  public Holders read() throws LiveAllocationsUnavailableException {
    Map<String, Pod> pods = new HashMap<>();
    try {
      // as PodFinder: by spec.nodeName, and by the hami.io/vgpu-node label the scheduler puts on its
      // pods (found also where field selectors are unsupported); more pods only protect more
      for (Pod p : client.pods().inAnyNamespace().withField("spec.nodeName", nodeName).list().getItems()) {
        pods.put(p.getMetadata().getUid(), p);
      }
      for (Pod p : client.pods().inAnyNamespace().withLabel(HamiNames.VGPU_NODE, nodeName).list().getItems()) {
        pods.putIfAbsent(p.getMetadata().getUid(), p);
      }
    } catch (KubernetesClientException e) {
      throw new LiveAllocationsUnavailableException("list pods bound to node " + nodeName + ": "
          + Causes.describe(e), e);
    }
    Set<String> uids = new HashSet<>();
    Set<String> npus = new HashSet<>();
    for (Pod p : pods.values()) {
      if (!nodeName.equals(p.getSpec() == null ? null : p.getSpec().getNodeName())) continue;
      String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
      if ("Succeeded".equals(phase) || "Failed".equals(phase)) continue;
      uids.add(p.getMetadata().getUid());
      Map<String, String> ann = p.getMetadata().getAnnotations();
      String allocated = ann == null ? null : ann.get(names.devicesAllocated());
      if (allocated == null || allocated.isBlank()) continue;
      try {
        for (List<ContainerDevice> c : codec.decode(allocated).containers()) {
          for (ContainerDevice d : c) npus.add(d.uuid());
        }
      } catch (HamiFormatException e) {
        LOG.warn("pod {}/{}: annotation {} = {}: {}", p.getMetadata().getNamespace(),
            p.getMetadata().getName(), names.devicesAllocated(), allocated, e.getMessage());
      }
    }
    return new Holders(uids, npus);
  }
}
