package io.vnpu.dcmi;

/**
 * Device memory of one host process ({@code dcmi_get_device_resource_info}).
 *
 * @param pid host PID
 * @param bytes device memory in bytes
 */
public record ProcessMemory(int pid, long bytes) {}
