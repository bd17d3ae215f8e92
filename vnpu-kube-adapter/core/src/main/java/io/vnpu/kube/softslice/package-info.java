/**
 * The one soft-slice mechanism of the adapters: what a Kubernetes soft slice may get ({@link
 * io.vnpu.kube.softslice.SoftSliceRule}), where its files are on the host and in the container, and
 * the service that creates, mounts, measures and removes them for HAMi, MindCluster and DRA alike.
 */
package io.vnpu.kube.softslice;
