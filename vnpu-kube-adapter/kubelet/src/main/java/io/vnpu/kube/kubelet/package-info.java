/**
 * The kubelet plumbing every kubelet-facing server shares: gRPC over unix domain sockets (JDK NIO,
 * no native transport), and the watch of a socket path and its file identity that tells a removed
 * or replaced socket.
 */
package io.vnpu.kube.kubelet;
