/**
 * The DRA kubelet plugin as one embeddable object: {@code DraPlugin} composes discovery,
 * ResourceSlice publishing, the claim state, the kubelet sockets and liveness; {@code NpuDriver}
 * answers the kubelet's prepare and unprepare calls.
 */
package io.vnpu.kube.dra;
