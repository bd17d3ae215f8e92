package io.vnpu.dcmi;

/**
 * DCMI address of one chip.
 *
 * @param cardId card ID from {@code dcmi_get_card_list} (may be non-contiguous)
 * @param deviceId chip index within the card
 */
public record CardDevice(int cardId, int deviceId) {}
