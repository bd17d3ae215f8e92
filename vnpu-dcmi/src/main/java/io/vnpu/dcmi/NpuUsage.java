package io.vnpu.dcmi;

/**
 * Live use of one NPU.
 *
 * @param hbmUsedBytes   device memory in use in bytes (HBM info, or DDR info on 310P)
 * @param aiCorePercent  AI Core utilisation in percent, -1 when the driver does not report it
 */
public record NpuUsage(long hbmUsedBytes, int aiCorePercent) {}
