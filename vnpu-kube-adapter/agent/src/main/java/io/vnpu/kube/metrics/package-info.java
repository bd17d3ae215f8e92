/**
 * Prometheus metrics and health endpoints of the node agent and the DRA plugin (Prometheus Java
 * client 1.x). Our own names follow the Prometheus conventions ({@code vnpu_} prefix, base units,
 * {@code _bytes}, {@code _seconds}, {@code _total}); {@link io.vnpu.kube.metrics.CompatNames} adds
 * HAMi's and npu-exporter's names so existing dashboards work. Per-NPU and per-slice series are
 * built at scrape time from what exists then: a slice whose pod is gone has no series, and a value
 * that cannot be measured is absent, never 0.
 */
package io.vnpu.kube.metrics;
