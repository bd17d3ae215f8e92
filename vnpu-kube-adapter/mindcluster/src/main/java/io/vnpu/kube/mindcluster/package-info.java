/**
 * A drop-in for Huawei MindCluster's Ascend Device Plugin behind the {@code resource} port: device
 * types and names as MindCluster advertises them (whole chips, static vNPU presets, 310P share
 * copies, dynamic {@code huawei.com/npu-core}), Allocate with and without the Ascend Docker
 * Runtime, the Volcano annotation handshake, and the device-info ConfigMap. Chip health and faults
 * come from the node's {@code io.vnpu.api.health.HealthSource}, the one place they are decided.
 *
 * <p>Subpackages: {@code config} (flags), {@code devices} (chips, families, names), {@code alloc}
 * (Allocate answers), {@code volcano} (scheduler handshake), {@code kube} (ConfigMap and node
 * reporting).
 */
package io.vnpu.kube.mindcluster;
