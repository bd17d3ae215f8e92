/** Idle hard-vNPU cleanup with a grace period (protocol spec section 6.4, bug 9.5). */
package io.vnpu.kube.hami.cleanup;
