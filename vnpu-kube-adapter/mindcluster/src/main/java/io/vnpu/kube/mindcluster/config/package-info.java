/**
 * MindCluster Ascend Device Plugin settings: the upstream flags ({@code
 * io.vnpu.kube.app.MindClusterFlags} in vnpu-cli) and the validated options record an embedder
 * builds directly ({@link io.vnpu.kube.mindcluster.config.MindClusterOptions}).
 */
package io.vnpu.kube.mindcluster.config;
