/**
 * The shared-memory mapping under the region and registry (MAP_SHARED, 64-bit atomics shared with
 * C), with faults on the mapping turned into exceptions; internal to {@code vnpu-quota}.
 */
package io.vnpu.quota.mapped;
