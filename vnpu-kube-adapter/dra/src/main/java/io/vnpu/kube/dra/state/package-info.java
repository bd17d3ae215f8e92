/**
 * The claim state machine: {@code ClaimPlanner} maps an allocation to node work, {@code
 * DeviceState} runs prepare and unprepare with rollback and start-up recovery, {@code
 * ClaimSpecBuilder} turns a plan into CDI, {@code VnpuReconciler} checks hard vNPUs after a reboot.
 */
package io.vnpu.kube.dra.state;
