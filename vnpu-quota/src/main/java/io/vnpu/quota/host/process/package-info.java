/**
 * Running a host slice's workload as a child process: launch, signal forwarding (JVM signals in,
 * {@code kill(2)} out through JNA) and the exit status.
 */
package io.vnpu.quota.host.process;
