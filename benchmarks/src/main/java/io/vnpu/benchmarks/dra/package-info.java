/**
 * JMH benchmarks of the DRA driver: NodePrepareResources through the kubelet's socket and
 * ResourceSlice publishing, against an in-process mock API server.
 */
package io.vnpu.benchmarks.dra;
