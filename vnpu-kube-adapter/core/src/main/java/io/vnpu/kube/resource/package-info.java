/**
 * The port between the kubelet-facing gRPC device plugin ({@code io.vnpu.kube.deviceplugin}) and
 * whatever decides which devices exist and what a container gets (for example the HAMi resource
 * manager in {@code io.vnpu.kube.hami}). The gRPC side knows nothing of HAMi; the resource side
 * knows nothing of gRPC.
 *
 * <p>Also the host side of soft slices that every soft-slicing backend (HAMi soft split, MindCluster
 * softShareDev) shares: the container's directory and quota region ({@link
 * io.vnpu.kube.resource.ContainerRegionDirectory}), its compute-registry entries ({@link
 * io.vnpu.kube.resource.ComputeRegistrations}) and the removal of gone pods' directories ({@link
 * io.vnpu.kube.resource.ContainerDirCleaner}).
 */
package io.vnpu.kube.resource;
