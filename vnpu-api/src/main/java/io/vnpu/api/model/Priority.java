package io.vnpu.api.model;

/**
 * Scheduling class of a slice's kernel launches. {@code HIGH} may preempt {@code NORMAL} launches
 * on the same NPU; HAMi's {@code NPU_PRIORITY} / {@code huawei.com/vnpu-priority} use 0 for high
 * and 1 for normal.
 */
public enum Priority {
  HIGH,
  NORMAL
}
