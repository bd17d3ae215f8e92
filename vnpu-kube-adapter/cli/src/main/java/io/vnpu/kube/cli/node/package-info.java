/**
 * How the CLI commands see the node: discovery through {@code DcmiNodeSelector} (real driver or
 * simulator) and the devices they name.
 */
package io.vnpu.kube.cli.node;
