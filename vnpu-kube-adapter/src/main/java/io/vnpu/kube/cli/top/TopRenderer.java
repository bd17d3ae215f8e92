package io.vnpu.kube.cli.top;

import io.vnpu.kube.cli.units.ByteSize;
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

  static final int BAR_WIDTH = 20;
  private static final int COMMAND_WIDTH = 60;

  private final ZoneId zone;

  /** @param zone time zone of the clock in the title line */
  public TopRenderer(ZoneId zone) {
    this.zone = zone;
  }

  /** The screen, lines separated by {@code \n}, ending with one. */
  public String render(HostSnapshot snap) {
    StringBuilder out = new StringBuilder();
    long npus = snap.slices().stream().mapToInt(SliceStatus::logicId).distinct().count();
    out.append(String.format(Locale.ROOT, "vnpu top - %s - %d slice%s on %d NPU%s - %s%s%n",
        DateTimeFormatter.ofPattern("HH:mm:ss").withZone(zone).format(snap.takenAt()),
        snap.slices().size(), snap.slices().size() == 1 ? "" : "s", npus, npus == 1 ? "" : "s",
        snap.stateDir(), snap.simulated() ? " (bundled simulated node)" : ""));
    if (snap.slices().isEmpty()) {
      out.append("no slices: start one with `vnpu run --device 0 --memory 8Gi -- CMD`\n");
      return out.toString().replace(System.lineSeparator(), "\n");
    }
    out.append(String.format(Locale.ROOT, "%-16s %3s  %-22s %-21s %-15s %s%n",
        "SLICE", "NPU", "MEMORY", "USED/LIMIT", "AI-CORE ach/tgt", "WEIGHT"));
    for (SliceStatus s : snap.slices()) {
      out.append(String.format(Locale.ROOT, "%-16s %3d  %s %-21s %-15s %s%s%n",
          s.name(), s.logicId(), bar(s.memoryUsedBytes(), s.memoryLimitBytes()),
          ByteSize.format(s.memoryUsedBytes()) + " / "
              + (s.memoryLimitBytes() == 0 ? "unlimited" : ByteSize.format(s.memoryLimitBytes())),
          share(s.achievedSharePct()) + " / " + share(s.targetSharePct()),
          "w" + s.weight() + (s.capPct() > 0 ? " cap " + s.capPct() + "%" : "")
              + (s.priority() == io.vnpu.api.model.Priority.HIGH ? " high" : ""),
          s.stale() ? "  STALE (owner " + s.ownerPid() + " gone)"
              : s.oomRejections() > 0 ? "  " + s.oomRejections() + " refused (207001)" : ""));
      for (ProcessStatus p : s.processes()) {
        out.append(String.format(Locale.ROOT, "  pid %-8d %10s  %s%n",
            p.pid(), ByteSize.format(p.memoryUsedBytes()), truncate(p.command())));
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

  private static String truncate(String s) {
    return s.length() <= COMMAND_WIDTH ? s : s.substring(0, COMMAND_WIDTH - 3) + "...";
  }
}
