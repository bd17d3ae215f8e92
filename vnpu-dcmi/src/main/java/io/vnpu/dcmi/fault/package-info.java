/**
 * Chip health over DCMI: the fault probe (polled codes and subscribed fault events), the chip
 * resetter used by hot reset and training recovery, and {@code DcmiHealth}, which wires them into
 * the fault engine of {@code io.vnpu.api.fault}.
 */
package io.vnpu.dcmi.fault;
