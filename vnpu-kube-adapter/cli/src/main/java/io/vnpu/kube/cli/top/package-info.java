/**
 * {@code vnpu top}: scans the host's regions and compute registries, computes each slice's share
 * against its target and renders the table (or JSON).
 */
package io.vnpu.kube.cli.top;
