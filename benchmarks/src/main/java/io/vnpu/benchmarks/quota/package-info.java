/**
 * JMH benchmarks of the quota region: admission and release on the mapped region, full snapshots,
 * create/open/delete of a region, and the same operations against the native limiter's C code.
 */
package io.vnpu.benchmarks.quota;
