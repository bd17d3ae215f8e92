package io.vnpu.dcmi;

import java.util.Arrays;

/**
 * DCMI return codes (vnpu DCMI spec section 1.4) with their symbolic names and meanings, plus the
 * codes MindCluster's wrapper uses for a missing symbol or library.
 */
public enum DcmiErrorCode {
  INVALID_PARAMETER(-8001, "invalid parameter"),
  OPER_NOT_PERMITTED(-8002, "operation not permitted"),
  MEM_OPERATE_FAIL(-8003, "memory operation failed"),
  SECURE_FUN_FAIL(-8004, "secure function failed"),
  INNER_ERR(-8005, "internal error (no device access or device held by another container)"),
  TIME_OUT(-8006, "timeout"),
  INVALID_DEVICE_ID(-8007, "invalid device ID"),
  DEVICE_NOT_EXIST(-8008, "device does not exist"),
  IOCTL_FAIL(-8009, "ioctl failed"),
  SEND_MSG_FAIL(-8010, "send message failed"),
  RECV_MSG_FAIL(-8011, "receive message failed"),
  NOT_READY(-8012, "not ready (card dropped)"),
  NOT_SUPPORT_IN_CONTAINER(-8013, "not supported inside containers"),
  FILE_OPERATE_FAIL(-8014, "file operation failed"),
  RESET_FAIL(-8015, "reset failed"),
  ABORT_OPERATE(-8016, "reset cancelled"),
  IS_UPGRADING(-8017, "upgrading"),
  RESOURCE_OCCUPIED(-8020, "resources occupied"),
  PARTITION_NOT_RIGHT(-8022, "partition consistency check failed"),
  CONFIG_INFO_NOT_EXIST(-8023, "configuration does not exist"),
  NOT_SUPPORT(-8255, "device or function not supported"),
  SYMBOL_NOT_FOUND(-99998, "function not found in libdcmi.so (upgrade the driver)"),
  LIBRARY_NOT_LOADED(-99999, "libdcmi.so not loadable"),
  UNKNOWN(Integer.MIN_VALUE, "unknown DCMI error");

  private final int code;
  private final String meaning;

  DcmiErrorCode(int code, String meaning) {
    this.code = code;
    this.meaning = meaning;
  }

  /** The numeric code; {@link #UNKNOWN} has none of its own. */
  public int code() {
    return code;
  }

  public String meaning() {
    return meaning;
  }

  /** The code's constant, {@link #UNKNOWN} for codes outside the spec's table. */
  public static DcmiErrorCode of(int code) {
    return Arrays.stream(values()).filter(c -> c.code == code).findFirst().orElse(UNKNOWN);
  }
}
