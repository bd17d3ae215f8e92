/** The Volcano scheduler handshake of MindCluster (pod annotations, predicate-time, AscendReal). */
package io.vnpu.kube.mindcluster.volcano;
