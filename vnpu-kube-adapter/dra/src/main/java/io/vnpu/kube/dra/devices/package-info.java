/**
 * The node's NPUs as the DRA driver sees them: discovery through DCMI with retries (never an empty
 * pool taken as the truth), the inventory, device names {@code npu-<phy>} and per-device facts.
 */
package io.vnpu.kube.dra.devices;
