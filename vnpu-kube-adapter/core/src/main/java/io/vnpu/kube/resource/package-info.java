/**
 * The port between the kubelet-facing gRPC device plugin ({@code io.vnpu.kube.deviceplugin}) and
 * whatever decides which devices exist and what a container gets (for example the HAMi resource
 * manager in {@code io.vnpu.kube.hami}). The gRPC side knows nothing of HAMi; the resource side
 * knows nothing of gRPC.
 *
 * <p>Also two seams of the one soft-slice mechanism ({@code io.vnpu.kube.softslice.SoftSlices}):
 * writing a region file ({@link io.vnpu.kube.resource.QuotaRegionFactory}) and the compute-registry
 * entries ({@link io.vnpu.kube.resource.ComputeRegistrations}).
 */
package io.vnpu.kube.resource;
