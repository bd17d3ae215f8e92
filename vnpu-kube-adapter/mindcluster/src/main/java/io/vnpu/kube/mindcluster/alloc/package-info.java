/** MindCluster Allocate answers: env for the Ascend Docker Runtime, or device nodes without it. */
package io.vnpu.kube.mindcluster.alloc;
