package io.vnpu.kube.hami.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.vnpu.kube.errors.Causes;
import io.vnpu.kube.hami.codec.HamiNames;
import io.vnpu.kube.hami.codec.Handshake;
import io.vnpu.kube.hami.codec.RegisterAnnotationCodec;
import io.vnpu.kube.hami.codec.RegisterDevice;
import io.vnpu.kube.json.JsonMappers;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Writes the three node annotations of one registration round (protocol spec section 2.1) in one
 * JSON merge patch: {@code hami.io/node-register-<cw>}, {@code hami.io/node-handshake-<cw>} ({@code
 * Reported_...}) and {@code hami-vnpu-core}.
 */
public final class NodeRegistrar {
  private final KubernetesClient client;
  private final String nodeName;
  private final HamiNames names;
  private final RegisterAnnotationCodec codec;
  private final Clock clock;
  private final Duration reportTimeOffset;
  private final JsonMapper mapper = JsonMappers.compact();

  /**
   * @param clock source of the handshake time; its zone formats the value (upstream uses the
   *     container's local zone, normally UTC)
   * @param reportTimeOffset {@code --report_time_offset}, added to the handshake time
   */
  public NodeRegistrar(
      KubernetesClient client,
      String nodeName,
      HamiNames names,
      RegisterAnnotationCodec codec,
      Clock clock,
      Duration reportTimeOffset) {
    this.client = Objects.requireNonNull(client, "client");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.names = Objects.requireNonNull(names, "names");
    this.codec = Objects.requireNonNull(codec, "codec");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.reportTimeOffset = Objects.requireNonNull(reportTimeOffset, "reportTimeOffset");
  }

  /**
   * Publishes one round.
   *
   * @throws RegisterException {@code get node <name>: ...} when the node is missing or the API
   *     fails, {@code patch node <name>: ...} when the patch is rejected
   */
  public void register(List<RegisterDevice> devices, boolean hamiVnpuCore)
      throws RegisterException {
    Node node;
    try {
      node = client.nodes().withName(nodeName).get();
    } catch (KubernetesClientException e) {
      throw new RegisterException("get node " + nodeName + ": " + Causes.describe(e), e);
    }
    if (node == null) throw new RegisterException("get node " + nodeName + ": not found");
    ObjectNode patch = mapper.createObjectNode();
    ObjectNode annotations = patch.putObject("metadata").putObject("annotations");
    annotations.put(names.nodeRegister(), codec.encode(devices));
    annotations.put(
        names.nodeHandshake(),
        Handshake.reported(clock.instant(), reportTimeOffset, clock.getZone()));
    annotations.put(HamiNames.HAMI_VNPU_CORE, Boolean.toString(hamiVnpuCore));
    try {
      client
          .nodes()
          .withName(nodeName)
          .patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
    } catch (KubernetesClientException e) {
      throw new RegisterException("patch node " + nodeName + ": " + Causes.describe(e), e);
    }
  }
}
