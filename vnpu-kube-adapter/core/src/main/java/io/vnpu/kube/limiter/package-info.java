/**
 * The soft-slice limiter on the host: installing {@code libvnpu.so} and its {@code ld.so.preload}
 * into the host directory that soft-sliced containers mount ({@link
 * io.vnpu.kube.limiter.LimiterInstaller}), and checking both files before any soft-slice Allocate
 * or Prepare answers ({@link io.vnpu.kube.limiter.LimiterGate}). The HAMi backend, the MindCluster
 * backend and the DRA plugin call the same two classes, so a pod never starts believing it is
 * limited when it is not.
 */
package io.vnpu.kube.limiter;
