/**
 * The kubelet-facing gRPC side of the DRA plugin: the DRA service in API versions v1 and v1beta1,
 * the registration service, the resource-health stream, liveness, socket paths, and the plugin
 * server that keeps the sockets served.
 */
package io.vnpu.kube.dra.kubelet;
