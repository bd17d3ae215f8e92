package io.vnpu.kube.cli.top;

import io.vnpu.api.model.MemorySize;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Renders a {@link HostSnapshot} as the text screen of {@code vnpu top}: one line per slice with a
 * memory bar and the AI-core share achieved against the target, then one indented line per process.
 */
public final class TopRenderer {

  /** ANSI: cursor home and clear screen, written before each redraw of the live view. */
  public static final String CLEAR_SCREEN = "\033[H\033[2J";

  /** Every line fits a terminal of this many columns. */
  public static final int COLUMNS = 80;

  static final int BAR_WIDTH = 10;
  private static final int NAME_WIDTH = 12;
  private static final String PROCESS_LINE = "  pid %-8d %10s  %s%n";
  private static final int COMMAND_WIDTH = COLUMNS - 27; // what PROCESS_LINE leaves

  private final ZoneId zone;

  /**
   * @param zone time zone of the clock in the title line
   */
  public TopRenderer(ZoneId zone) {
    this.zone = zone;
  }

  /**
   * The screen, lines separated by {@code \n}, ending with one; no line is longer than {@value
   * #COLUMNS} characters (long slice names, commands and state directories are shortened).
   */
  public String render(HostSnapshot snap) {
    StringBuilder out = new StringBuilder();
    long npus = snap.slices().stream().mapToInt(SliceStatus::logicId).distinct().count();
    String head =
        String.format(
            Locale.ROOT,
            "vnpu top - %s - %d slice%s on %d NPU%s - ",
            DateTimeFormatter.ofPattern("HH:mm:ss").withZone(zone).format(snap.takenAt()),
            snap.slices().size(),
            snap.slices().size() == 1 ? "" : "s",
            npus,
            npus == 1 ? "" : "s");
    String tail = snap.simulated() ? " (simulated node)" : "";
    out.append(head)
        .append(shortenLeft(snap.stateDir(), COLUMNS - head.length() - tail.length()))
        .append(tail)
        .append('\n');
    if (snap.slices().isEmpty()) {
      out.append("no slices: start one with `vnpu run --device 0 --memory 8Gi -- CMD`\n");
      return out.toString();
    }
    out.append(
        String.format(
            Locale.ROOT,
            "%-12s %3s %-12s %-21s %-13s %s%n",
            "SLICE",
            "NPU",
            "MEMORY",
            "USED/LIMIT",
            "SHARE ach/tgt",
            "WEIGHT"));
    for (SliceStatus s : snap.slices()) {
      out.append(
          String.format(
              Locale.ROOT,
              "%-12s %3d %s %-21s %-13s %s%n",
              shortenRight(s.name(), NAME_WIDTH),
              s.logicId(),
              bar(s.memoryUsedBytes(), s.memoryLimitBytes()),
              MemorySize.format(s.memoryUsedBytes())
                  + "/"
                  + (s.memoryLimitBytes() == 0
                      ? "unlimited"
                      : MemorySize.format(s.memoryLimitBytes())),
              share(s.achievedSharePct()) + "/" + share(s.targetSharePct()),
              (s.capPct() > 0 ? "cap " + s.capPct() + "%" : "w" + s.weight())
                  + (s.priority() == io.vnpu.api.model.Priority.HIGH ? " high" : "")));
      if (s.stale()) {
        out.append(String.format(Locale.ROOT, "  ! stale: owner pid %d is gone%n", s.ownerPid()));
      } else if (s.oomRejections() > 0) {
        out.append(
            String.format(
                Locale.ROOT,
                "  ! %d allocation%s refused (207001)%n",
                s.oomRejections(),
                s.oomRejections() == 1 ? "" : "s"));
      }
      for (ProcessStatus p : s.processes()) {
        out.append(
            String.format(
                Locale.ROOT,
                PROCESS_LINE,
                p.pid(),
                MemorySize.format(p.memoryUsedBytes()),
                shortenRight(p.command(), COMMAND_WIDTH)));
      }
    }
    return out.toString().replace(System.lineSeparator(), "\n");
  }

  /** {@code [#####.....]} of {@value #BAR_WIDTH} cells; an unlimited slice shows no fill. */
  static String bar(long used, long limit) {
    int filled = 0;
    if (limit > 0) {
      filled = (int) Math.min(BAR_WIDTH, Math.round((double) used * BAR_WIDTH / limit));
      if (used > 0 && filled == 0) filled = 1; // any use is visible
    }
    return "[" + "#".repeat(filled) + ".".repeat(BAR_WIDTH - filled) + "]";
  }

  private static String share(Double pct) {
    return pct == null ? "-" : String.format(Locale.ROOT, "%.1f%%", pct);
  }

  private static String shortenRight(String s, int width) {
    return s.length() <= width ? s : s.substring(0, width - 1) + "~";
  }

  private static String shortenLeft(String s, int width) {
    return s.length() <= width ? s : "..." + s.substring(s.length() - Math.max(0, width - 3));
  }
}
