/**
 * {@code vnpu demo}: runs workloads under the limiter on the simulated node, checks their measured
 * shares against the simulator's ground truth and writes the Markdown report.
 */
package io.vnpu.kube.cli.demo;
