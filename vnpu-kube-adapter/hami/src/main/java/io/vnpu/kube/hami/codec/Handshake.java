package io.vnpu.kube.hami.codec;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * Values of the node handshake annotation {@code hami.io/node-handshake-<cw>} (protocol spec
 * section 2.3). The plugin writes {@code Reported_<yyyy.MM.dd HH:mm:ss>}; the scheduler answers
 * {@code Requesting_<yyyy-MM-dd HH:mm:ss>}. Only "contains Requesting" matters to the scheduler.
 */
public final class Handshake {
  /** Go layout {@code 2006.01.02 15:04:05}. */
  private static final DateTimeFormatter REPORTED =
      DateTimeFormatter.ofPattern("yyyy.MM.dd HH:mm:ss");

  private Handshake() {}

  /**
   * The value the plugin writes: {@code Reported_} + ({@code now} + {@code offset}) in {@code
   * zone}.
   *
   * @param offset {@code --report_time_offset} (upstream default 1 s)
   */
  public static String reported(Instant now, Duration offset, ZoneId zone) {
    return "Reported_" + REPORTED.format(now.plus(offset).atZone(zone));
  }

  /** True when the scheduler is waiting for a report (the value contains {@code Requesting}). */
  public static boolean isRequesting(String value) {
    return value != null && value.contains("Requesting");
  }
}
