/**
 * The quota region a container's limiter reads: create, open and delete ({@code QuotaRegions}),
 * exact memory admission and release, process identity and the region's locks, with errors naming
 * the file and field.
 */
package io.vnpu.quota.region;
