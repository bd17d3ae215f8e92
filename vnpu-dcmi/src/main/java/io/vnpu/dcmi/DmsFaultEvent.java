package io.vnpu.dcmi;

/**
 * One fault event delivered by {@code dcmi_subscribe_fault_event} ({@code struct
 * dcmi_dms_fault_event}).
 *
 * @param eventId fault code (unsigned 32-bit)
 * @param logicId {@code deviceid}: logic ID of the chip
 * @param severity 0 warning, 1 minor, 2 major, 3 critical
 * @param assertion 0 recovered, 1 occurred, 2 one-shot
 * @param raisedSeconds {@code alarm_raised_time}, seconds since the epoch
 * @param name {@code event_name}
 */
public record DmsFaultEvent(
    long eventId, int logicId, int severity, int assertion, long raisedSeconds, String name) {}
