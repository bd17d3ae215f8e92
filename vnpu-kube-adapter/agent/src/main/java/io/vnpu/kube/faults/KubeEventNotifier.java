package io.vnpu.kube.faults;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.api.health.FaultNotifier;
import io.vnpu.kube.errors.Causes;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes fault notices as core/v1 Events (vnpu DCMI spec section 3.5): type {@code Warning},
 * reason {@code Occur}, {@code Recovery} or {@code Notice}, source and reporting component {@code
 * device-plugin}, bound to the device plugin's pod (env {@code POD_NAME}, {@code POD_NAMESPACE})
 * or, without one, to the Node. Wrap it in a {@link io.vnpu.api.fault.RateLimitedNotifier} (10 a
 * minute). A failed create is logged, never thrown.
 */
public final class KubeEventNotifier implements FaultNotifier {
  /** The reporting component MindCluster's device plugin uses. */
  public static final String COMPONENT = "device-plugin";

  private static final Logger LOG = LoggerFactory.getLogger(KubeEventNotifier.class);

  private final KubernetesClient client;
  private final ObjectReference involved;
  private final String namespace;
  private final String nodeName;
  private final Clock clock;

  private KubeEventNotifier(
      KubernetesClient client,
      ObjectReference involved,
      String namespace,
      String nodeName,
      Clock clock) {
    this.client = Objects.requireNonNull(client, "client");
    this.involved = involved;
    this.namespace = namespace;
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Events bound to the device plugin's pod. */
  public static KubeEventNotifier forPod(
      KubernetesClient client, String podNamespace, String podName, String nodeName, Clock clock) {
    ObjectReference ref =
        new ObjectReferenceBuilder()
            .withApiVersion("v1")
            .withKind("Pod")
            .withNamespace(podNamespace)
            .withName(podName)
            .build();
    return new KubeEventNotifier(client, ref, podNamespace, nodeName, clock);
  }

  /** Events bound to the Node (in namespace {@code default}, as kubelet's node events). */
  public static KubeEventNotifier forNode(KubernetesClient client, String nodeName, Clock clock) {
    ObjectReference ref =
        new ObjectReferenceBuilder()
            .withApiVersion("v1")
            .withKind("Node")
            .withName(nodeName)
            .withUid(nodeName)
            .build();
    return new KubeEventNotifier(client, ref, "default", nodeName, clock);
  }

  @Override
  public void notify(int logicId, String reason, String message) {
    String now =
        DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.SECONDS));
    try {
      client
          .v1()
          .events()
          .inNamespace(namespace)
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withGenerateName(involved.getName() + ".")
                  .withNamespace(namespace)
                  .endMetadata()
                  .withInvolvedObject(involved)
                  .withType("Warning")
                  .withReason(reason)
                  .withMessage(message)
                  .withNewSource()
                  .withComponent(COMPONENT)
                  .withHost(nodeName)
                  .endSource()
                  .withReportingComponent(COMPONENT)
                  .withReportingInstance(nodeName)
                  .withFirstTimestamp(now)
                  .withLastTimestamp(now)
                  .withCount(1)
                  .build())
          .create();
    } catch (KubernetesClientException e) {
      LOG.warn("fault Event not created ({} {}): {}", reason, message, Causes.describe(e));
    }
  }
}
