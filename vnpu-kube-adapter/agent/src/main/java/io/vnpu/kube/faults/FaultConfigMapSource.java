package io.vnpu.kube.faults;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vnpu.api.fault.FaultConfigDocument;
import io.vnpu.api.fault.FaultConfigReloader;
import io.vnpu.api.fault.FaultConfigReloader.Snapshot;
import io.vnpu.kube.errors.Causes;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fault configuration override of ConfigMap {@code kube-system/mindx-dl-fault-config} (vnpu
 * DCMI spec section 3.5): keys {@code faultCode.json} and {@code faultCustomization.json}, and the
 * re-read period {@code PollInterval} (seconds, 30..3600, default 300). A missing ConfigMap or key
 * means the shipped default for that file.
 */
public final class FaultConfigMapSource {
  public static final String NAMESPACE = "kube-system";
  public static final String NAME = "mindx-dl-fault-config";
  public static final String FAULT_CODE_KEY = "faultCode.json";
  public static final String CUSTOMIZATION_KEY = "faultCustomization.json";
  public static final String POLL_INTERVAL_KEY = "PollInterval";
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(300);

  private static final Logger LOG = LoggerFactory.getLogger(FaultConfigMapSource.class);

  private final KubernetesClient client;
  private final String namespace;
  private final String name;

  public FaultConfigMapSource(KubernetesClient client) {
    this(client, NAMESPACE, NAME);
  }

  public FaultConfigMapSource(KubernetesClient client, String namespace, String name) {
    this.client = Objects.requireNonNull(client, "client");
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.name = Objects.requireNonNull(name, "name");
  }

  /** What the ConfigMap holds now, as read from the API (the poll). */
  public record Reading(
      Snapshot snapshot, Duration pollInterval, Optional<String> pollIntervalError) {}

  /**
   * Reads the ConfigMap.
   *
   * @throws KubernetesClientException when the API server cannot be asked (the caller keeps the
   *     configuration in force and retries)
   */
  public Reading read() {
    ConfigMap cm = client.configMaps().inNamespace(namespace).withName(name).get();
    if (cm == null || cm.getData() == null) {
      return new Reading(Snapshot.ABSENT, DEFAULT_POLL_INTERVAL, Optional.empty());
    }
    Map<String, String> data = cm.getData();
    String origin = "ConfigMap " + namespace + "/" + name;
    Snapshot snap =
        new Snapshot(
            origin, doc(origin, data, FAULT_CODE_KEY), doc(origin, data, CUSTOMIZATION_KEY));
    Duration poll = DEFAULT_POLL_INTERVAL;
    Optional<String> bad = Optional.empty();
    String raw = data.get(POLL_INTERVAL_KEY);
    if (raw != null) {
      try {
        long s = Long.parseLong(raw.strip());
        if (s < 30 || s > 3600) throw new NumberFormatException();
        poll = Duration.ofSeconds(s);
      } catch (NumberFormatException e) {
        bad =
            Optional.of(
                origin
                    + "["
                    + POLL_INTERVAL_KEY
                    + "] = "
                    + raw
                    + ": must be whole seconds in 30..3600; "
                    + DEFAULT_POLL_INTERVAL.toSeconds()
                    + " s used");
      }
    }
    return new Reading(snap, poll, bad);
  }

  private static Optional<FaultConfigDocument> doc(
      String origin, Map<String, String> data, String key) {
    return Optional.ofNullable(data.get(key))
        .map(t -> new FaultConfigDocument(origin + "[" + key + "]", t, 0));
  }

  /**
   * One reload round: reads the ConfigMap and hands it to {@code reloader} (a bad version keeps the
   * last good one); an unreachable API server changes nothing.
   *
   * @return the period until the next round
   */
  public Duration reloadOnce(FaultConfigReloader reloader) {
    Reading r;
    try {
      r = read();
    } catch (KubernetesClientException e) {
      LOG.warn(
          "ConfigMap {}/{} not read, keeping {}: {}",
          namespace,
          name,
          reloader.inForce().origin(),
          Causes.describe(e));
      return DEFAULT_POLL_INTERVAL;
    }
    r.pollIntervalError().ifPresent(m -> LOG.warn("{}", m));
    reloader.reload(r.snapshot());
    return r.pollInterval();
  }
}
