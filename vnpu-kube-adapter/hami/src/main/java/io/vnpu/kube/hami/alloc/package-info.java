/**
 * Allocate responses (protocol spec section 4): pure builders for whole card / hard split and soft
 * split, and the side effects of a container (vNPU creation, container directory and quota region).
 */
package io.vnpu.kube.hami.alloc;
