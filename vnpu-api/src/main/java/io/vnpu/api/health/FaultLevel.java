package io.vnpu.api.health;

import java.util.Arrays;
import java.util.Optional;

/**
 * How a fault is handled, as MindCluster's device plugin grades it, ordered from no fault to the
 * most severe ({@code compareTo} gives severity). The names are the {@code faultCode.json} / {@code
 * faultCustomization.json} terms.
 */
public enum FaultLevel {
  NORMAL_NPU("NormalNPU", null),
  NOT_HANDLE_FAULT("NotHandleFault", "NotHandleFaultCodes"),
  SUB_HEALTH_FAULT("SubHealthFault", "SubHealthFaultCodes"),
  RESTART_REQUEST("RestartRequest", "RestartRequestCodes"),
  RESTART_BUSINESS("RestartBusiness", "RestartBusinessCodes"),
  FREE_RESTART_NPU("FreeRestartNPU", "FreeRestartNPUCodes"),
  RESTART_NPU("RestartNPU", "RestartNPUCodes"),
  PRE_SEPARATE_NPU("PreSeparateNPU", "PreSeparateNPUCodes"),
  SEPARATE_NPU("SeparateNPU", "SeparateNPUCodes"),
  MANUALLY_SEPARATE_NPU("ManuallySeparateNPU", null);

  private final String term;
  private final String codesKey;

  FaultLevel(String term, String codesKey) {
    this.term = term;
    this.codesKey = codesKey;
  }

  /** The MindCluster name, e.g. {@code RestartNPU}. */
  public String term() {
    return term;
  }

  /**
   * The {@code faultCode.json} key listing this level's codes; empty for NormalNPU and
   * ManuallySeparateNPU.
   */
  public Optional<String> codesKey() {
    return Optional.ofNullable(codesKey);
  }

  /** The level named {@code term} (exact MindCluster spelling, case-insensitive). */
  public static Optional<FaultLevel> ofTerm(String term) {
    return Arrays.stream(values()).filter(l -> l.term.equalsIgnoreCase(term.strip())).findFirst();
  }

  /** A chip at this level may still be handed to new workloads. */
  public boolean allowsScheduling() {
    return this == NORMAL_NPU || this == NOT_HANDLE_FAULT || this == SUB_HEALTH_FAULT;
  }

  /** The chip recovers only through a hot reset ({@code -hotReset 0}). */
  public boolean needsReset() {
    return this == RESTART_NPU || this == FREE_RESTART_NPU;
  }

  /** The more severe of two levels. */
  public FaultLevel max(FaultLevel other) {
    return compareTo(other) >= 0 ? this : other;
  }

  @Override
  public String toString() {
    return term;
  }
}
