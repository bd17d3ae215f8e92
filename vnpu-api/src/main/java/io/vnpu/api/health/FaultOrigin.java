package io.vnpu.api.health;

/** Where a fault was learnt from (vnpu DCMI spec section 3.4, fault sources a to e). */
public enum FaultOrigin {
  /** {@code dcmi_subscribe_fault_event} callback. */
  EVENT("event"),
  /** {@code dcmi_get_device_errorcode_v2} polling, diffed against the known set. */
  POLL("poll"),
  /** {@code dcmi_get_device_health} returned -8012: the card dropped. */
  CARD_DROP("card drop"),
  /** Parameter-plane (RoCE) link status. */
  LINK("link"),
  /** Set by an operator or restored from the persisted manual separation. */
  OPERATOR("operator");

  private final String label;

  FaultOrigin(String label) {
    this.label = label;
  }

  /** Lower-case words for reasons, e.g. {@code card drop}. */
  public String label() {
    return label;
  }
}
