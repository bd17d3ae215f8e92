package io.vnpu.dcmi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.stream.Stream;

/**
 * Maps a chip's CPU affinity (a Linux cpulist from {@code dcmi_get_affinity_cpu_info_by_device_id})
 * to the NUMA node whose {@code /sys/devices/system/node/nodeN/cpulist} contains it, as the
 * MindCluster device plugin does.
 */
public final class NumaNodes {
  private final Path nodeDir;

  /**
   * @param nodeDir usually {@code /sys/devices/system/node}
   */
  public NumaNodes(Path nodeDir) {
    this.nodeDir = nodeDir;
  }

  public static NumaNodes system() {
    return new NumaNodes(Path.of("/sys/devices/system/node"));
  }

  /** The node containing every CPU of {@code cpulist}, or -1 when none does or it is unknown. */
  public int nodeOf(String cpulist) {
    BitSet want = parse(cpulist);
    if (want == null || want.isEmpty() || !Files.isDirectory(nodeDir)) {
      return -1;
    }
    try (Stream<Path> nodes = Files.list(nodeDir)) {
      return nodes
          .filter(p -> p.getFileName().toString().matches("node\\d+"))
          .filter(
              p -> {
                BitSet have = parse(read(p.resolve("cpulist")));
                if (have == null) {
                  return false;
                }
                BitSet missing = (BitSet) want.clone();
                missing.andNot(have);
                return missing.isEmpty();
              })
          .mapToInt(p -> Integer.parseInt(p.getFileName().toString().substring(4)))
          .min()
          .orElse(-1);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + nodeDir, e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file).trim();
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * Highest CPU number accepted: Linux's {@code CONFIG_NR_CPUS} is at most 8192. A larger number (a
   * driver reporting {@code 0-2147483647}) is malformed, not a reason to allocate gigabytes.
   */
  static final int MAX_CPU = 8191;

  /** Longest cpulist read; a real one for 8192 CPUs is far shorter. */
  static final int MAX_CPULIST_CHARS = 65_536;

  /**
   * Parses {@code 0-3,8,10-11}; null when malformed (including CPU numbers above {@value
   * #MAX_CPU}).
   */
  static BitSet parse(String cpulist) {
    BitSet set = new BitSet();
    if (cpulist == null || cpulist.isBlank()) {
      return set;
    }
    if (cpulist.length() > MAX_CPULIST_CHARS) {
      return null;
    }
    try {
      for (String part : cpulist.trim().split(",", -1)) {
        String[] range = part.split("-", -1);
        if (range.length > 2) {
          return null;
        }
        int lo = cpu(range[0]);
        int hi = range.length > 1 ? cpu(range[1]) : lo;
        if (lo < 0 || hi < lo) {
          return null;
        }
        set.set(lo, hi + 1);
      }
    } catch (NumberFormatException e) {
      return null;
    }
    return set;
  }

  /** A CPU number in 0..{@value #MAX_CPU}, or -1. */
  private static int cpu(String text) {
    String t = text.trim();
    if (t.isEmpty() || t.length() > 5 || !t.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return -1;
    }
    int v = Integer.parseInt(t);
    return v <= MAX_CPU ? v : -1;
  }
}
