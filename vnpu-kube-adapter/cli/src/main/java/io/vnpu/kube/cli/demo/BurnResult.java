package io.vnpu.kube.cli.demo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One result line of {@code npu-burn}: {@code <what> <ok|fail|done> key=value ...}, see {@code
 * native/cann-sim/README.md}.
 *
 * @param what the step, e.g. {@code alloc}
 * @param outcome {@code ok}, {@code fail} or {@code done}
 * @param fields the key=value pairs in order
 */
public record BurnResult(String what, String outcome, Map<String, String> fields) {

  public BurnResult {
    fields = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(fields));
  }

  /** Parses every result line of an output; other lines (diagnostics) are skipped. */
  public static List<BurnResult> parseAll(String output) {
    List<BurnResult> out = new ArrayList<>();
    for (String line : output.split("\n")) parse(line).ifPresent(out::add);
    return out;
  }

  /** Parses one line, empty when it is not a result line. */
  public static Optional<BurnResult> parse(String line) {
    String[] parts = line.trim().split("\\s+");
    if (parts.length < 2
        || !(parts[1].equals("ok") || parts[1].equals("fail") || parts[1].equals("done"))) {
      return Optional.empty();
    }
    Map<String, String> f = new LinkedHashMap<>();
    for (int i = 2; i < parts.length; i++) {
      int eq = parts[i].indexOf('=');
      if (eq <= 0) return Optional.empty();
      f.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
    }
    return Optional.of(new BurnResult(parts[0], parts[1], f));
  }

  /** A numeric field. */
  public long number(String key) {
    String v = fields.get(key);
    if (v == null)
      throw new IllegalStateException("npu-burn line '" + this + "' has no " + key + "=");
    return Long.parseLong(v);
  }
}
