/**
 * MindCluster Ascend Device Plugin settings: the upstream flags ({@link
 * io.vnpu.kube.mindcluster.config.MindClusterFlags}) and the validated options record an embedder
 * builds directly ({@link io.vnpu.kube.mindcluster.config.MindClusterOptions}).
 */
package io.vnpu.kube.mindcluster.config;
