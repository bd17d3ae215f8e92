package io.vnpu.api.fault.recovery;

import java.util.List;
import java.util.Objects;

/**
 * One element of {@code reset.json}'s {@code RankList} (MindCluster "reset-config-job-name" table).
 *
 * @param rankId the rank of the chip in the job
 * @param logicId the chip's DCMI logic ID
 * @param status {@code unrecovered}, {@code recovered} or {@code failed}
 * @param policy what is done now: {@code reset}, {@code isolate}, or empty
 * @param initialPolicy what the fault asked for first
 * @param errorCode the chip's fault codes, decimal
 * @param errorCodeHex the same, comma-separated upper-case hex without {@code 0x} (empty without)
 */
public record RankEntry(
    int rankId,
    int logicId,
    String status,
    String policy,
    String initialPolicy,
    List<Long> errorCode,
    String errorCodeHex) {
  public static final String UNRECOVERED = "unrecovered";
  public static final String RECOVERED = "recovered";
  public static final String FAILED = "failed";
  public static final String POLICY_RESET = "reset";
  public static final String POLICY_ISOLATE = "isolate";

  public RankEntry {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(initialPolicy, "initialPolicy");
    errorCode = List.copyOf(errorCode);
    Objects.requireNonNull(errorCodeHex, "errorCodeHex");
  }

  /** The same rank with another status and policy. */
  public RankEntry with(String newStatus, String newPolicy) {
    return new RankEntry(
        rankId, logicId, newStatus, newPolicy, initialPolicy, errorCode, errorCodeHex);
  }
}
