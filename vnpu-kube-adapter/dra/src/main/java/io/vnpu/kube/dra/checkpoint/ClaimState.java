package io.vnpu.kube.dra.checkpoint;

/**
 * Where preparing a claim got to. {@code PrepareStarted} is written before a hard vNPU is created
 * on the node, so that a crash or a timed-out call leaves a record of what to roll back (a whole
 * NPU or a soft share writes no {@code PrepareStarted}: what a crash leaves of them is named after
 * the claim UID and found without a record; the previous release wrote it for soft shares too, and
 * it is still read and rolled back); {@code PrepareCompleted} after the CDI spec file exists.
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
