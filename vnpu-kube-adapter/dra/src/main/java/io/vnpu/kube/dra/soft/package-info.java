/**
 * The DRA side of soft shares that the one soft-slice mechanism ({@code io.vnpu.kube.softslice})
 * does not own: the checkpoint record of a prepared (device, shareID), with what the scheduler
 * charged, what the limiter enforces and where its region is, so a restarted plugin adopts it.
 */
package io.vnpu.kube.dra.soft;
