/**
 * MindCluster training-job fault recovery ({@code -hotReset=2}) over Kubernetes: the jobs of this
 * node from their pods, the {@code reset-config-<job>} and {@code fault-config-<job>} ConfigMaps,
 * and the recovery's Events. The sequence itself is {@link
 * io.vnpu.api.fault.recovery.TrainingRecovery}.
 */
package io.vnpu.kube.mindcluster.recovery;
