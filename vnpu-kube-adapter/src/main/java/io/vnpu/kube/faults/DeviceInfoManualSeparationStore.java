package io.vnpu.kube.faults;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.vnpu.api.health.ManualSeparationStore;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ManualSeparationStore} in MindCluster's place: key {@code ManuallySeparateNPU} of the
 * device-info ConfigMap {@code kube-system/mindx-dl-deviceinfo-<nodeName>}, a comma list of chip
 * names such as {@code Ascend910-0,Ascend910-3}. Only that key is written (JSON merge patch), so
 * the device-info writer's other keys are left alone; an operator releases a chip by deleting its
 * name. Names the node does not have are ignored with a warning.
 */
public final class DeviceInfoManualSeparationStore implements ManualSeparationStore {
  public static final String KEY = "ManuallySeparateNPU";
  public static final String NAMESPACE = "kube-system";
  private static final Logger LOG = LoggerFactory.getLogger(DeviceInfoManualSeparationStore.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubernetesClient client;
  private final String name;
  private final Map<Integer, String> chipNames;
  private final Map<String, Integer> logicByName = new HashMap<>();

  /**
   * @param chipNames the device name of every chip by logic ID, e.g. {@code 0 → Ascend910-0}
   *     (name prefix and phy ID, vnpu DCMI spec section 3.2)
   */
  public DeviceInfoManualSeparationStore(KubernetesClient client, String nodeName, Map<Integer, String> chipNames) {
    this.client = Objects.requireNonNull(client, "client");
    this.name = "mindx-dl-deviceinfo-" + Objects.requireNonNull(nodeName, "nodeName");
    this.chipNames = Map.copyOf(chipNames);
    chipNames.forEach((logic, n) -> logicByName.put(n, logic));
  }

  @Override
  public Set<Integer> load() {
    ConfigMap cm = client.configMaps().inNamespace(NAMESPACE).withName(name).get();
    Set<Integer> out = new TreeSet<>();
    if (cm == null || cm.getData() == null) return out;
    String list = cm.getData().getOrDefault(KEY, "");
    for (String chip : list.split(",")) {
      String n = chip.strip();
      if (n.isEmpty()) continue;
      Integer logic = logicByName.get(n);
      if (logic == null) {
        LOG.warn("ConfigMap {}/{}[{}]: {} is not a chip of this node, ignored", NAMESPACE, name, KEY, n);
      } else {
        out.add(logic);
      }
    }
    return out;
  }

  @Override
  public void save(Set<Integer> logicIds) {
    String value = new TreeSet<>(logicIds).stream().map(l -> chipNames.getOrDefault(l, "logic-" + l))
        .sorted().collect(Collectors.joining(","));
    if (client.configMaps().inNamespace(NAMESPACE).withName(name).get() == null) {
      client.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder()
          .withNewMetadata().withName(name).withNamespace(NAMESPACE)
          .addToLabels("mx-consumer-cim", "true").endMetadata()
          .addToData(KEY, value).build()).create();
      return;
    }
    ObjectNode patch = JSON.createObjectNode();
    patch.putObject("data").put(KEY, value);
    client.configMaps().inNamespace(NAMESPACE).withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
  }
}
