package io.vnpu.api.fault;

import java.util.Objects;

/**
 * The fault configuration in force: the code table and the escalation rules, and where they came
 * from (e.g. {@code ConfigMap kube-system/mindx-dl-fault-config} or the shipped default).
 */
public record FaultConfig(FaultCodeTable table, FaultCustomization customization, String origin) {
  public FaultConfig {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(customization, "customization");
    Objects.requireNonNull(origin, "origin");
  }
}
