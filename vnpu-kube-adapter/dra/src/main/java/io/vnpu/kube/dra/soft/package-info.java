/**
 * The node side of DRA soft shares: the quota regions and compute-registry entries a prepared soft
 * share creates, in the order {@code DeviceState} records them in the checkpoint, so a restarted
 * plugin adopts them.
 */
package io.vnpu.kube.dra.soft;
