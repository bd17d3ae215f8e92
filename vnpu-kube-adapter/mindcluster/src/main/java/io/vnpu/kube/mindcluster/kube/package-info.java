/**
 * What a MindCluster node reports to the cluster: the device-info ConfigMap (with the {@code
 * ManuallySeparateNPU} store of the fault engine) and the node labels and annotations.
 */
package io.vnpu.kube.mindcluster.kube;
