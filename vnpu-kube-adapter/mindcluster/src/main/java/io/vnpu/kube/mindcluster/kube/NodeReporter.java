package io.vnpu.kube.mindcluster.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.kube.json.JsonMappers;
import io.vnpu.kube.mindcluster.devices.CardType;
import io.vnpu.kube.mindcluster.devices.ChipState;
import io.vnpu.kube.mindcluster.devices.NodeChips;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The node labels and annotations MindCluster writes at start (spec section 3.7). Labels: {@code
 * node.kubernetes.io/npu.chip.name}, {@code servertype} (only when absent: an operator's value
 * wins), {@code accelerator}, {@code mind-cluster/npu-chip-memory} on HBM chips. Annotations:
 * {@code baseDeviceInfos} (chip name → {@code {"IP","SuperDeviceID"}}, IP = the chip's RoCE address
 * from {@code dcmi_get_device_ip}, {@code ""} when it has none, as upstream stores a failed query;
 * SuperDeviceID = the chip's {@code sdid} from {@code dcmi_spod_info}, a number, 0 when unknown),
 * {@code superPodID}, {@code serverIndex} (the node's {@code dcmi_spod_info}: -1 not in a
 * super-pod, -2 unknown, e.g. on 910B, as upstream), {@code serverType}, {@code cardType}; {@code
 * huawei.com/driver.version} when the driver reports its version ({@code dcmi_get_dcmi_version}),
 * {@code infer-card-type=card-300i-duo} when every card is an Atlas 300I Duo ({@code
 * dcmi_get_product_type}), {@code accelerator-type=card-910b-infer} on 910B chips of an Atlas 300I
 * A2 card (board ID 0x28 or 0x29, spec section 1.9), and on A3 in a super-pod {@code
 * huawei.com/topotree.superpodid}.
 */
public final class NodeReporter {
  public static final String CHIP_NAME = "node.kubernetes.io/npu.chip.name";
  public static final String SERVER_TYPE = "servertype";
  public static final String ACCELERATOR = "accelerator";
  public static final String CHIP_MEMORY = "mind-cluster/npu-chip-memory";
  public static final String BASE_DEVICE_INFOS = "baseDeviceInfos";
  public static final String DRIVER_VERSION = "huawei.com/driver.version";
  public static final String INFER_CARD_TYPE = "infer-card-type";

  /** {@code infer-card-type} value of a node whose cards are all Atlas 300I Duo. */
  public static final String CARD_300I_DUO = "card-300i-duo";

  public static final String ACCELERATOR_TYPE = "accelerator-type";

  /** A3 label: the node's super-pod ID (only when it is in one). */
  public static final String TOPOTREE_SUPER_POD_ID = "huawei.com/topotree.superpodid";

  public static final String SUPER_POD_ID = "superPodID";
  public static final String SERVER_INDEX = "serverIndex";

  /** {@code accelerator-type} of a node with Atlas 300I A2 (910B inference) cards. */
  public static final String CARD_910B_INFER = "card-910b-infer";

  private static final JsonMapper JSON = JsonMappers.compact();

  private final KubernetesClient client;
  private final String nodeName;

  public NodeReporter(KubernetesClient client, String nodeName) {
    this.client = Objects.requireNonNull(client, "client");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
  }

  /**
   * Writes the labels and annotations for the chips (the first chip gives the node's type).
   *
   * @throws IllegalStateException naming the node when it does not exist
   * @throws KubernetesClientException when the API server fails
   */
  public void report(NodeChips chips) {
    report(chips, Optional.empty(), java.util.OptionalInt.empty());
  }

  /**
   * As {@link #report(NodeChips)}, with the driver's version for {@code huawei.com/driver.version}
   * and the board ID of the first chip's card ({@code dcmi_get_device_board_info}).
   *
   * @throws IllegalStateException naming the node when it does not exist
   * @throws KubernetesClientException when the API server fails
   */
  public void report(
      NodeChips chips, Optional<String> driverVersion, java.util.OptionalInt boardId) {
    if (chips.chips().isEmpty()) return;
    ChipState first = chips.chips().get(0);
    CardType type = first.type();
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(CHIP_NAME, first.npu().chipName());
    labels.put(ACCELERATOR, "huawei-" + type.deviceName());
    if (type.hbm() && first.npu().hbmMib() > 0) {
      labels.put(CHIP_MEMORY, (first.npu().hbmMib() / 1024) + "G");
    }
    driverVersion.ifPresent(v -> labels.put(DRIVER_VERSION, v));
    if (type == CardType.ASCEND910B
        && boardId.isPresent()
        && (boardId.getAsInt() == 0x28 || boardId.getAsInt() == 0x29)) {
      labels.put(ACCELERATOR_TYPE, CARD_910B_INFER);
    }
    if (chips.chips().stream()
        .allMatch(c -> c.productType().filter("Atlas 300I Duo"::equals).isPresent())) {
      labels.put(INFER_CARD_TYPE, CARD_300I_DUO);
    }
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put(BASE_DEVICE_INFOS, baseDeviceInfos(chips));
    io.vnpu.api.model.SuperPodInfo superPod = chips.superPod();
    annotations.put(SUPER_POD_ID, Integer.toString(superPod.superPodId()));
    annotations.put(SERVER_INDEX, Integer.toString(superPod.serverIndex()));
    if (type == CardType.ASCEND910A3 && superPod.superPodId() >= 0) {
      labels.put(TOPOTREE_SUPER_POD_ID, Integer.toString(superPod.superPodId()));
    }
    annotations.put(
        "serverType",
        type == CardType.ASCEND910A3 ? "A3" : type == CardType.ASCEND950 ? "npu" : "");
    annotations.put("cardType", type.realType());
    String serverType = type.serverType(first.npu().aiCores());
    Node node = client.nodes().withName(nodeName).get();
    if (node == null) throw new IllegalStateException("node " + nodeName + " does not exist");
    client
        .nodes()
        .withName(nodeName)
        .edit(
            n -> {
              Map<String, String> l =
                  n.getMetadata().getLabels() == null
                      ? new HashMap<>()
                      : new HashMap<>(n.getMetadata().getLabels());
              l.putAll(labels);
              l.putIfAbsent(SERVER_TYPE, serverType);
              Map<String, String> a =
                  n.getMetadata().getAnnotations() == null
                      ? new HashMap<>()
                      : new HashMap<>(n.getMetadata().getAnnotations());
              a.putAll(annotations);
              n.getMetadata().setLabels(l);
              n.getMetadata().setAnnotations(a);
              return n;
            });
  }

  /** The {@code baseDeviceInfos} annotation value for the chips (JSON, chip names sorted). */
  public static String baseDeviceInfos(NodeChips chips) {
    Map<String, Object> m = new TreeMap<>();
    for (ChipState c : chips.chips()) {
      Map<String, Object> info = new LinkedHashMap<>();
      info.put("IP", c.roceIp().orElse(""));
      info.put("SuperDeviceID", c.superPod().superDeviceId());
      m.put(c.name(), info);
    }
    try {
      return JSON.writeValueAsString(m);
    } catch (JacksonException e) {
      throw new IllegalStateException("baseDeviceInfos not serialisable", e);
    }
  }
}
