/**
 * ResourceSlices: NPUs turned into {@code resource.k8s.io/v1} devices with capacities, shared
 * counters and taints, and the publisher that reconciles the node's pool with the API server (watch
 * plus resync) and notes fields an API server drops.
 */
package io.vnpu.kube.dra.slices;
