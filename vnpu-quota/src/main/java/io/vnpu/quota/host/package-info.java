/**
 * Host slicing without Kubernetes ({@code vnpu run}): a slice request, its quota region and
 * registry entries, the state directory and slice records, and the workload's environment for the
 * limiter.
 */
package io.vnpu.quota.host;
