package io.vnpu.api.health;

/** {@code dcmi_dms_fault_event.assertion}: what an event says about its fault. */
public enum Assertion {
  /** 0: the fault is gone. */
  RECOVERED,
  /** 1: the fault is present from now on. */
  OCCURRED,
  /** 2: a one-shot fault: counted, not kept active. */
  ONE_SHOT;

  /**
   * The enum for a raw {@code assertion} byte.
   *
   * @throws IllegalArgumentException for values other than 0, 1, 2
   */
  public static Assertion of(int raw) {
    return switch (raw) {
      case 0 -> RECOVERED;
      case 1 -> OCCURRED;
      case 2 -> ONE_SHOT;
      default ->
          throw new IllegalArgumentException("fault event assertion " + raw + " is not 0, 1 or 2");
    };
  }
}
