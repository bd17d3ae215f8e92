/** The node's chips as MindCluster sees them: families, names, snapshots and advertised devices. */
package io.vnpu.kube.mindcluster.devices;
