package io.vnpu.kube.mindcluster.kube;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.api.health.ManualSeparationStore;
import io.vnpu.api.model.Npu;
import io.vnpu.kube.errors.Causes;
import io.vnpu.kube.mindcluster.devices.CardType;
import io.vnpu.kube.mindcluster.devices.MindClusterResources;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MindCluster's home of the {@code ManuallySeparateNPU} chips: the device-info ConfigMap key of
 * that name, chip names comma-joined ({@code Ascend910-0,Ascend910-3}), for the fault engine's
 * {@link ManualSeparationStore} port. Names of chips this node does not have are ignored on load
 * (logged once per load).
 */
public final class ConfigMapSeparationStore implements ManualSeparationStore {
  private static final Logger LOG = LoggerFactory.getLogger(ConfigMapSeparationStore.class);

  private final DeviceInfoConfigMap configMap;
  private final Map<Integer, String> nameByLogic = new HashMap<>();
  private final Map<String, Integer> logicByName = new HashMap<>();

  /**
   * @param npus the node's chips (logic ID ↔ MindCluster name)
   */
  public ConfigMapSeparationStore(DeviceInfoConfigMap configMap, List<Npu> npus) {
    this.configMap = Objects.requireNonNull(configMap, "configMap");
    for (Npu n : npus) {
      CardType.ofChipName(n.chipName())
          .ifPresent(
              t -> {
                String name = MindClusterResources.chip(t, n.phyId());
                nameByLogic.put(n.logicId(), name);
                logicByName.put(name, n.logicId());
              });
    }
  }

  @Override
  public Set<Integer> load() {
    Set<Integer> out = new TreeSet<>();
    List<String> names;
    try {
      names = configMap.manuallySeparated();
    } catch (KubernetesClientException e) {
      // the health monitor logs the message only: give it the cause (unreachable, forbidden, ...)
      throw new IllegalStateException(
          "read ConfigMap " + configMap.name() + ": " + Causes.describe(e), e);
    }
    for (String name : names) {
      Integer logic = logicByName.get(name);
      if (logic == null) {
        LOG.warn(
            "{} key {} names {}, which is not a chip of this node; ignored",
            configMap.name(),
            DeviceInfoConfigMap.MANUALLY_SEPARATE_NPU,
            name);
      } else {
        out.add(logic);
      }
    }
    return out;
  }

  @Override
  public void save(Set<Integer> logicIds) {
    try {
      configMap.saveManuallySeparated(
          new TreeSet<>(logicIds)
              .stream()
                  .map(nameByLogic::get)
                  .filter(Objects::nonNull)
                  .collect(Collectors.toList()));
    } catch (KubernetesClientException e) {
      throw new IllegalStateException(
          "write ConfigMap " + configMap.name() + ": " + Causes.describe(e), e);
    }
  }
}
