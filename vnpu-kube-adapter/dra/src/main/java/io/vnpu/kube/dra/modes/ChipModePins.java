package io.vnpu.kube.dra.modes;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The sharing mode {@code --chip-modes} pins to chips, by phy ID: a comma-separated list of {@code
 * <phy ID or range>=<mode>}, e.g. {@code 0-3=hard,4-7=soft}; modes {@code whole}, {@code hard}
 * ({@link ChipMode#HARD_VNPU}) and {@code soft}. A pinned chip is offered in that mode only, with
 * or without shared counters; unpinned chips follow {@link ChipModes}' rule.
 *
 * @param ranges the entries in flag order, ranges not overlapping
 */
public record ChipModePins(List<Range> ranges) {
  /** The flag. */
  public static final String FLAG = "--chip-modes";

  /** Nothing pinned. */
  public static final ChipModePins NONE = new ChipModePins(List.of());

  private static final Pattern IDS =
      Pattern.compile("(0|[1-9][0-9]{0,8})(?:-(0|[1-9][0-9]{0,8}))?");

  /** Phy IDs {@code from..to} (inclusive) pinned to {@code mode}. */
  public record Range(int from, int to, ChipMode mode) {
    /** As the flag writes it: {@code 9=soft}, {@code 0-3=hard}. */
    @Override
    public String toString() {
      String word =
          switch (mode) {
            case WHOLE -> "whole";
            case HARD_VNPU -> "hard";
            case SOFT -> "soft";
          };
      return (from == to ? Integer.toString(from) : from + "-" + to) + "=" + word;
    }
  }

  public ChipModePins {
    ranges = List.copyOf(ranges);
  }

  /**
   * Parses the flag's value; null or blank pins nothing.
   *
   * @param hardEnabled {@code --enable-hard-vnpu}: {@code hard} needs it
   * @param softEnabled {@code --enable-soft-slicing}: {@code soft} needs it
   * @throws IllegalArgumentException one line naming the flag, its value and the fault, e.g. {@code
   *     --chip-modes = 0-3=hrad: unknown mode hrad (known: whole, hard, soft)}
   */
  public static ChipModePins parse(String value, boolean hardEnabled, boolean softEnabled) {
    if (value == null || value.isBlank()) {
      return NONE;
    }
    List<Range> out = new ArrayList<>();
    for (String raw : value.split(",", -1)) {
      String entry = raw.strip();
      int eq = entry.indexOf('=');
      if (eq < 0) {
        throw bad(value, "entry " + quoted(entry) + " is not <phy IDs>=<mode>");
      }
      String ids = entry.substring(0, eq).strip();
      String word = entry.substring(eq + 1).strip();
      Matcher m = IDS.matcher(ids);
      if (!m.matches()) {
        throw bad(value, quoted(ids) + " is not a phy ID or a range of phy IDs (e.g. 0-3)");
      }
      int from = Integer.parseInt(m.group(1));
      int to = m.group(2) == null ? from : Integer.parseInt(m.group(2));
      if (to < from) {
        throw bad(value, "range " + from + "-" + to + " is backwards");
      }
      ChipMode mode =
          switch (word) {
            case "whole" -> ChipMode.WHOLE;
            case "hard" -> ChipMode.HARD_VNPU;
            case "soft" -> ChipMode.SOFT;
            default ->
                throw bad(value, "unknown mode " + quoted(word) + " (known: whole, hard, soft)");
          };
      if (mode == ChipMode.HARD_VNPU && !hardEnabled) {
        throw bad(value, "hard needs --enable-hard-vnpu");
      }
      if (mode == ChipMode.SOFT && !softEnabled) {
        throw bad(value, "soft needs --enable-soft-slicing");
      }
      for (Range r : out) {
        if (from <= r.to() && r.from() <= to) {
          throw bad(value, "phy ID " + Math.max(from, r.from()) + " is given twice");
        }
      }
      out.add(new Range(from, to, mode));
    }
    return new ChipModePins(out);
  }

  /** The mode pinned to the chip with {@code phyId}, empty when none. */
  public Optional<ChipMode> of(int phyId) {
    return ranges.stream()
        .filter(r -> r.from() <= phyId && phyId <= r.to())
        .map(Range::mode)
        .findFirst();
  }

  /**
   * The entries that pin no chip of a node with these phy IDs: a typo, or a flag shared by nodes
   * with fewer chips (the DaemonSet passes one value to every node).
   */
  public List<Range> unmatched(java.util.Collection<Integer> phyIds) {
    return ranges.stream()
        .filter(r -> phyIds.stream().noneMatch(id -> r.from() <= id && id <= r.to()))
        .toList();
  }

  private static String quoted(String s) {
    return s.isEmpty() ? "(empty)" : s;
  }

  private static IllegalArgumentException bad(String value, String why) {
    return new IllegalArgumentException(FLAG + " = " + value + ": " + why);
  }
}
