/**
 * CDI specs for prepared claims: the spec records, the minimum CDI version, the device names, the
 * atomic spec writer, and the host's Ascend device nodes and mounts probed with {@code stat}.
 */
package io.vnpu.kube.dra.cdi;
