package io.vnpu.kube.testing.podman;

import java.nio.file.Path;
import java.util.List;

/**
 * Two containers burning one chip at once: each runs {@code burn} for 1 s, 2 s (measured) and 1 s,
 * so the measured phases overlap whatever the start-up skew of the two; each share is its middle
 * phase's device time over its wall time, as npu-burn reports them under the limiter.
 */
public final class ChipSplit {
  private static final List<String> STEPS =
      List.of("/opt/npu/burn", "burn", "1000", "1", "burn", "1000", "2", "burn", "1000", "1");

  private ChipSplit() {}

  /**
   * The shares of containers started with {@code a} and {@code b}, measured again once when the two
   * together kept the chip less than 90 % busy (a loaded host that did not run both).
   *
   * @param cdiRoot the runtime's CDI directory, or null
   */
  public static double[] measure(
      String test, Podman podman, Path cdiRoot, List<String> a, List<String> b) throws Exception {
    double[] s = once(podman, cdiRoot, a, b);
    if (s[0] + s[1] < 0.90) {
      System.err.printf(
          "[vnpu] %s: chip split %.3f / %.3f leaves it idle; measuring again%n", test, s[0], s[1]);
      s = once(podman, cdiRoot, a, b);
    }
    System.err.printf("[vnpu] %s: chip split %.3f / %.3f%n", test, s[0], s[1]);
    return s;
  }

  private static double[] once(Podman podman, Path cdiRoot, List<String> a, List<String> b)
      throws Exception {
    Process pa = podman.start(cdiRoot, a, WorkloadImage.NAME, STEPS);
    Process pb = podman.start(cdiRoot, b, WorkloadImage.NAME, STEPS);
    Podman.Result ra = Podman.finish(pa, 120);
    Podman.Result rb = Podman.finish(pb, 120);
    for (Podman.Result r : List.of(ra, rb)) {
      if (r.exit() != 0) {
        throw new AssertionError("burn container exit " + r.exit() + ": " + r.err());
      }
    }
    return new double[] {phaseShare(ra), phaseShare(rb)};
  }

  private static double phaseShare(Podman.Result r) {
    String line =
        r.lines().stream()
            .filter(l -> l.startsWith("burn done"))
            .skip(1)
            .findFirst()
            .orElseThrow(() -> new AssertionError("no second 'burn done' in " + r.out()));
    return (double) Long.parseLong(field(line, "busy_ns")) / Long.parseLong(field(line, "wall_ns"));
  }

  /** The value of {@code key=} in an npu-burn line. */
  public static String field(String line, String key) {
    for (String kv : line.split(" ")) {
      if (kv.startsWith(key + "=")) {
        return kv.substring(key.length() + 1);
      }
    }
    throw new AssertionError("no " + key + " in " + line);
  }
}
