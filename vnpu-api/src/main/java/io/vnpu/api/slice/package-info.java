/**
 * The one model of a slice, shared by every adapter (HAMi device plugin, MindCluster device plugin,
 * DRA driver) and by host slicing ({@code vnpu run}). Two halves:
 *
 * <ul>
 *   <li>what an adapter decided: {@link io.vnpu.api.slice.SliceDecision} — NPUs by phy ID / UUID
 *       ({@link io.vnpu.api.slice.NpuRef}), each with a {@link io.vnpu.api.slice.SliceShare}:
 *       whole, hard template, or soft quota + share;
 *   <li>what the node must then do: {@link io.vnpu.api.slice.SlicePlan} — vNPUs to create, the
 *       quota region to create, {@link io.vnpu.api.slice.ContainerEdits} (env, mounts, device
 *       nodes), CDI device names and CRI annotations.
 * </ul>
 *
 * Memory is in bytes throughout; adapters convert at their wire (HAMi annotations and {@code
 * NPU_MEM_QUOTA} are MiB).
 */
package io.vnpu.api.slice;
