package io.vnpu.api.fault.recovery;

import java.util.List;

/**
 * The content of {@code reset.json} in ConfigMap {@code reset-config-<job>}, as the job's recovery
 * agent inside the container reads it (MindCluster field names: {@code RankList}, {@code
 * UpdateTime}, {@code RetryTime}, {@code FaultFlushing}, {@code GracefulExit}, {@code
 * RestartFaultProcess}).
 *
 * @param rankList the job's ranks on the ring being recovered
 * @param updateTime Unix seconds of this write
 * @param retryTime recoveries of this job so far (this one included)
 * @param faultFlushing a fault is being handled: the agent must not start training processes
 * @param gracefulExit 1: stop every training process on the ring; 0: nothing asked
 * @param restartFaultProcess restart only the faulty processes (always false here: the whole ring
 *     resets, so every process on it stops)
 */
public record ResetInfo(
    List<RankEntry> rankList,
    long updateTime,
    int retryTime,
    boolean faultFlushing,
    int gracefulExit,
    boolean restartFaultProcess) {
  /** {@code restartType} of a hot-reset recovery. */
  public static final String RESTART_TYPE_HOT_RESET = "hotReset";

  public ResetInfo {
    rankList = List.copyOf(rankList);
  }
}
