/**
 * The kubelet device-plugin v1beta1 server over a unix socket: Register, ListAndWatch, Allocate,
 * GetPreferredAllocation and PreStartContainer for any {@code ResourceManager}, with an explicit
 * state machine and a restart budget; it knows no backend.
 */
package io.vnpu.kube.deviceplugin;
