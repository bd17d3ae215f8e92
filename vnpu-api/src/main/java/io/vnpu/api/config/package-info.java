/**
 * HAMi-compatible configuration: the global Ascend device config ({@code device-config.yaml}: chip
 * models, memory in MiB, vNPU templates) and the per-node config ({@code node-config.yaml}), with
 * template selection ("trim") and VDeviceCount as the HAMi scheduler and device plugin compute
 * them.
 *
 * <p>Entry points: {@link io.vnpu.api.config.DeviceConfigLoader}, {@link
 * io.vnpu.api.config.NodeConfigLoader}. Results are immutable records; problems carry file, line,
 * YAML path and value ({@link io.vnpu.api.config.ConfigProblem}).
 */
package io.vnpu.api.config;
