/** The node's NPUs with live health, and the fake device IDs the kubelet sees. */
package io.vnpu.kube.hami.devices;
