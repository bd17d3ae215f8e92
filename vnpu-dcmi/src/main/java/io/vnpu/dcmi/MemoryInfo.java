package io.vnpu.dcmi;

/**
 * Device memory of a chip: HBM ({@code dcmi_get_device_hbm_info}) or DDR ({@code
 * dcmi_get_device_memory_info_v3}).
 *
 * @param totalMb capacity in MB (MiB, as the driver counts)
 * @param usedMb in use in MB
 */
public record MemoryInfo(long totalMb, long usedMb) {}
