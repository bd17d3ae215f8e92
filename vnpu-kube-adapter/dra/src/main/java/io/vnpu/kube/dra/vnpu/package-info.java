/**
 * Hard vNPUs for DRA: the bundled template table, which chips may be cut, the driver port that
 * creates and destroys vNPUs through DCMI, and the records the checkpoint keeps of them.
 */
package io.vnpu.kube.dra.vnpu;
