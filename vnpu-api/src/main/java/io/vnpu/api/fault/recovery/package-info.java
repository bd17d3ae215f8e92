/**
 * Training-job fault recovery ({@code -hotReset=2}, vnpu DCMI spec sections 3.5 and 3.12): the
 * sequence fault seen, ranks marked and graceful exit asked, the job's processes gone, the ring
 * reset, boot and network checked, recovered or isolated; each step written to the job's {@code
 * reset-config-<job>} ConfigMap through {@link io.vnpu.api.fault.recovery.RecoveryStore} so that
 * the job's recovery agent inside the container reads it, and so that a restarted plugin resumes.
 * Kubernetes-free: the adapter implements the ports.
 */
package io.vnpu.api.fault.recovery;
