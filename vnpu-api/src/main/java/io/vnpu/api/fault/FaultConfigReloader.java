package io.vnpu.api.fault;

import io.vnpu.api.config.ConfigException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reloads the fault configuration while running (MindCluster polls ConfigMap {@code
 * kube-system/mindx-dl-fault-config} every {@code PollInterval} s): a good new version replaces the
 * one in force, a bad one is reported once with every wrong line and the last good version stays,
 * an absent source falls back to the shipped default. Not thread-safe: call from one loop.
 */
public final class FaultConfigReloader {
  private static final Logger LOG = LoggerFactory.getLogger(FaultConfigReloader.class);

  /**
   * What the source holds now.
   *
   * @param origin e.g. {@code ConfigMap kube-system/mindx-dl-fault-config}
   * @param faultCode {@code faultCode.json}, empty when the source has none
   * @param customization {@code faultCustomization.json}, empty when the source has none
   */
  public record Snapshot(
      String origin,
      Optional<FaultConfigDocument> faultCode,
      Optional<FaultConfigDocument> customization) {
    public static final Snapshot ABSENT =
        new Snapshot("shipped default", Optional.empty(), Optional.empty());
  }

  /** Result of one reload. */
  public enum Outcome {
    UNCHANGED,
    APPLIED,
    REJECTED
  }

  private final Consumer<FaultConfig> apply;
  private Snapshot lastSeen;
  private FaultConfig inForce;
  private Optional<String> lastError = Optional.empty();

  /**
   * @param initial the configuration in force at start
   * @param apply receives every newly applied configuration (e.g. {@link FaultTracker#configure})
   */
  public FaultConfigReloader(FaultConfig initial, Consumer<FaultConfig> apply) {
    this.inForce = Objects.requireNonNull(initial, "initial");
    this.apply = Objects.requireNonNull(apply, "apply");
  }

  /** Checks the source's current content. */
  public Outcome reload(Snapshot now) {
    Objects.requireNonNull(now, "now");
    if (now.equals(lastSeen)) return Outcome.UNCHANGED;
    lastSeen = now;
    FaultConfig next;
    try {
      next = FaultConfigs.parse(now.origin(), now.faultCode(), now.customization());
    } catch (ConfigException e) {
      lastError = Optional.of(e.getMessage());
      LOG.warn(
          "fault configuration from {} rejected, keeping {}:\n{}",
          now.origin(),
          inForce.origin(),
          e.getMessage());
      return Outcome.REJECTED;
    }
    lastError = Optional.empty();
    next.table().warnings().forEach(w -> LOG.warn("{}", w));
    next.customization().warnings().forEach(w -> LOG.warn("{}", w));
    inForce = next;
    apply.accept(next);
    LOG.info(
        "fault configuration from {} in force: {} codes, {} frequency and {} duration rules",
        next.origin(),
        next.table().levels().size(),
        next.customization().frequency().size(),
        next.customization().duration().size());
    return Outcome.APPLIED;
  }

  /** The configuration in force. */
  public FaultConfig inForce() {
    return inForce;
  }

  /** Why the last version was rejected, empty when it was applied. */
  public Optional<String> lastError() {
    return lastError;
  }
}
