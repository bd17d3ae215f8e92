/**
 * The Kubernetes side of fault handling (vnpu DCMI spec section 3.5): the fault configuration
 * override in ConfigMap {@code kube-system/mindx-dl-fault-config}, fault notices as Events, and DRA
 * device taints. The engine itself is {@code io.vnpu.api.fault}; these are its adapters to the API
 * server.
 */
package io.vnpu.kube.faults;
