/**
 * The one-line summary {@code vnpu run} prints on stderr when its workload has ended (slice, NPU,
 * exit status, duration, peak HBM).
 */
package io.vnpu.kube.cli.run;
