/**
 * fabric8 adapters: finding the pod being bound, writing pod and node annotations, the node lock.
 */
package io.vnpu.kube.hami.kube;
