/**
 * The port between the kubelet-facing gRPC device plugin ({@code io.vnpu.kube.deviceplugin}) and
 * whatever decides which devices exist and what a container gets (for example the HAMi resource
 * manager in {@code io.vnpu.kube.hami}). The gRPC side knows nothing of HAMi; the resource side
 * knows nothing of gRPC.
 */
package io.vnpu.kube.resource;
