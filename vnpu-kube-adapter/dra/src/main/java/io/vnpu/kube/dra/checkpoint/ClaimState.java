package io.vnpu.kube.dra.checkpoint;

/**
 * Where preparing a claim got to. {@code PrepareStarted} is written before anything is created on
 * the node, so that a crash or a timed-out call leaves a record of what to roll back; {@code
 * PrepareCompleted} after the CDI spec file exists.
 *
 * <pre>
 * (absent) ──prepare──▶ PrepareStarted ──CDI written──▶ PrepareCompleted ──unprepare──▶ (absent)
 *                            └──failure / unprepare: roll back──▶ (absent)
 * </pre>
 */
public enum ClaimState {
  PrepareStarted,
  PrepareCompleted
}
