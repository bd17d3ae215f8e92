/**
 * Observation interfaces with no metrics library behind them: health checks for the probes, a
 * request observer the DRA driver reports to, and the slice sources per-slice metrics read; the
 * agent implements them with Prometheus, an embedder with anything.
 */
package io.vnpu.kube.observe;
