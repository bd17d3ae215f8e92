package io.vnpu.kube.mindcluster.recovery;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.api.fault.recovery.RecoveryEvents;
import io.vnpu.api.fault.recovery.TrainingJob;
import io.vnpu.kube.errors.Causes;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A core/v1 Event per recovery step in the job's namespace, bound to the job's {@code
 * reset-config-<job>} ConfigMap (where its agent and its owner look), reporting component {@code
 * device-plugin}. A failed create is logged, never thrown.
 */
public final class RecoveryEventsToKube implements RecoveryEvents {
  private static final Logger LOG = LoggerFactory.getLogger(RecoveryEventsToKube.class);
  private static final String COMPONENT = "device-plugin";

  private final KubernetesClient client;
  private final String nodeName;
  private final Clock clock;

  public RecoveryEventsToKube(KubernetesClient client, String nodeName, Clock clock) {
    this.client = Objects.requireNonNull(client, "client");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public void record(TrainingJob job, String reason, String message, boolean warning) {
    String now =
        DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.SECONDS));
    String cm = ResetConfigMaps.RESET_PREFIX + job.name();
    try {
      client
          .v1()
          .events()
          .inNamespace(job.namespace())
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withGenerateName(cm + ".")
                  .withNamespace(job.namespace())
                  .endMetadata()
                  .withInvolvedObject(
                      new ObjectReferenceBuilder()
                          .withApiVersion("v1")
                          .withKind("ConfigMap")
                          .withNamespace(job.namespace())
                          .withName(cm)
                          .build())
                  .withType(warning ? "Warning" : "Normal")
                  .withReason(reason)
                  .withMessage("node " + nodeName + ": " + message)
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
      LOG.warn("recovery Event not created ({} {}): {}", reason, message, Causes.describe(e));
    }
  }
}
