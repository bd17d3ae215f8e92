/**
 * The client of the kubelet's PodResources API, and the chip-in-use check built on it (a chip is in
 * use while a container holds one of its devices).
 */
package io.vnpu.kube.podresources;
