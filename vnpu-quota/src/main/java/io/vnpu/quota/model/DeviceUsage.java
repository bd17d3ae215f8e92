package io.vnpu.quota.model;

/**
 * Memory accounting of one logical device. Sizes in bytes; counters are totals since the region was
 * initialised. {@code usedBytes} is the sum of committed charges of all slots, never negative.
 *
 * @param device logical device ID
 * @param usedBytes bytes charged now
 * @param limitBytes configured limit, 0 = unlimited
 * @param peakBytes highest usage after an admission
 * @param oomRejections allocations refused with 207001
 * @param reapedBytes bytes reclaimed from dead processes
 * @param unknownFrees frees of pointers the limiter did not track
 * @param admissions allocations admitted
 */
public record DeviceUsage(
    int device,
    long usedBytes,
    long limitBytes,
    long peakBytes,
    long oomRejections,
    long reapedBytes,
    long unknownFrees,
    long admissions) {}
