package io.vnpu.kube.fuzz;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * Runs a target on mutated inputs for a bounded time and number of inputs and fails on the first
 * input that throws anything but the documented exceptions; the message carries the input (as text
 * and hex) so it can be added to the seeds. Deterministic sequence for a fixed seed.
 */
final class FuzzRun {
  /** The target: parse the input; documented exceptions are the expected way to refuse it. */
  @FunctionalInterface
  interface Target {
    void accept(byte[] input) throws Exception;
  }

  /** Time budget per fuzz target in {@code mvn verify}; override with -Dvnpu.fuzz.seconds=N. */
  static Duration budget() {
    return Duration.ofSeconds(Long.getLong("vnpu.fuzz.seconds", 3));
  }

  /**
   * @return the number of inputs run (every seed first, unmutated)
   * @throws AssertionError naming the input when the target throws anything else
   */
  static int run(
      String name,
      List<byte[]> seeds,
      List<String> dictionary,
      int maxLen,
      Set<Class<? extends Throwable>> documented,
      Target target) {
    long deadline = System.nanoTime() + budget().toNanos();
    int n = 0;
    for (byte[] seed : seeds) {
      check(name, seed, documented, target);
      n++;
    }
    Mutator m = new Mutator(0x5eed_0019L ^ name.hashCode(), seeds, dictionary);
    while (System.nanoTime() < deadline && n < 200_000) {
      check(name, m.next(maxLen), documented, target);
      n++;
    }
    return n;
  }

  private static void check(
      String name, byte[] input, Set<Class<? extends Throwable>> documented, Target target) {
    try {
      target.accept(input);
    } catch (Throwable t) {
      if (documented.stream().anyMatch(c -> c.isInstance(t))) return;
      AssertionError e = new AssertionError(name + ": input " + describe(input) + " threw " + t);
      e.initCause(t);
      throw e;
    }
  }

  static String describe(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    if (text.length() > 300) text = text.substring(0, 300) + "...";
    String hex = HexFormat.of().formatHex(input, 0, Math.min(input.length, 256));
    return "\"" + text.replace("\n", "\\n") + "\" (" + input.length + " bytes, hex " + hex + ")";
  }
}
