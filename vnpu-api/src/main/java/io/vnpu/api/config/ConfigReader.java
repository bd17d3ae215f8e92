package io.vnpu.api.config;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Typed, problem-collecting access to a composed YAML document: every getter records an error and
 * returns empty instead of throwing, so one pass reports every problem in the file.
 *
 * <p>Keys match case-insensitively because HAMi turns the YAML into JSON and Go's {@code
 * encoding/json} matches struct fields that way.
 */
final class ConfigReader {
  private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]+");

  /** Longest value quoted in a problem. */
  static final int MAX_SHOWN_CHARS = 64;

  private final String file;
  private final int lineOffset;
  private final List<ConfigProblem> errors = new ArrayList<>();
  private final List<ConfigProblem> warnings = new ArrayList<>();

  ConfigReader(String file, int lineOffset) {
    this.file = file;
    this.lineOffset = lineOffset;
  }

  List<ConfigProblem> errors() {
    return List.copyOf(errors);
  }

  List<ConfigProblem> warnings() {
    return List.copyOf(warnings);
  }

  /** 1-based line of a node in the file. */
  int line(Node node) {
    return node.getStartMark().getLine() + 1 + lineOffset;
  }

  /** An error about a node's value (the value is quoted in the problem when it is a scalar). */
  void error(Node at, String path, String message) {
    errors.add(new ConfigProblem(file, line(at), path, valueOf(at), message));
  }

  /** A warning about a node's value. */
  void warn(Node at, String path, String message) {
    warnings.add(new ConfigProblem(file, line(at), path, valueOf(at), message));
  }

  /** A warning that names a key, not its value. */
  void warnKey(Node at, String path, String message) {
    warnings.add(new ConfigProblem(file, line(at), path, Optional.empty(), message));
  }

  static String child(String parent, String key) {
    return parent.isEmpty() ? key : parent + "." + key;
  }

  static String index(String parent, int i) {
    return parent + "[" + i + "]";
  }

  /**
   * Reads a mapping: warns about unknown keys (naming them), accepts {@code ignored} keys silently,
   * reports duplicate keys.
   *
   * @param keys the schema's keys, in the schema's spelling
   * @param ignored keys that are valid in HAMi but not used here
   */
  Optional<Fields> mapping(Node node, String path, Set<String> keys, Set<String> ignored) {
    if (!(node instanceof MappingNode)) {
      error(node, path, "expected a mapping, got " + kind(node));
      return Optional.empty();
    }
    Map<String, String> canonical = new HashMap<>();
    keys.forEach(k -> canonical.put(fold(k), k));
    ignored.forEach(k -> canonical.put(fold(k), k));
    Map<String, Node> values = new HashMap<>();
    Map<String, Node> keyNodes = new HashMap<>();
    for (NodeTuple t : ((MappingNode) node).getValue()) {
      if (!(t.getKeyNode() instanceof ScalarNode)) {
        error(t.getKeyNode(), path, "keys must be plain strings, got " + kind(t.getKeyNode()));
        continue;
      }
      String written = ((ScalarNode) t.getKeyNode()).getValue();
      String key = canonical.get(fold(written));
      if (key == null) {
        warnKey(t.getKeyNode(), child(path, written), "unknown key, ignored");
        continue;
      }
      Node first = keyNodes.putIfAbsent(key, t.getKeyNode());
      if (first != null) {
        errors.add(
            new ConfigProblem(
                file,
                line(t.getKeyNode()),
                child(path, written),
                Optional.empty(),
                "duplicate key (first at line "
                    + line(first)
                    + "; keys are case-insensitive, as HAMi reads them)"));
        continue;
      }
      if (keys.contains(key)) values.put(key, t.getValueNode());
    }
    return Optional.of(new Fields(node, path, values));
  }

  /** A nested mapping under a key. */
  Optional<Fields> mapping(
      Fields f, String key, boolean required, Set<String> keys, Set<String> ignored) {
    return present(f, key, required).flatMap(n -> mapping(n, f.path(key), keys, ignored));
  }

  /** The elements of a sequence under a key. */
  Optional<List<Node>> sequence(Fields f, String key, boolean required) {
    return present(f, key, required).flatMap(n -> sequence(n, f.path(key)));
  }

  Optional<List<Node>> sequence(Node node, String path) {
    if (!(node instanceof SequenceNode)) {
      error(node, path, "expected a list, got " + kind(node));
      return Optional.empty();
    }
    return Optional.of(((SequenceNode) node).getValue());
  }

  /** A non-empty string. */
  Optional<String> string(Fields f, String key, boolean required) {
    return present(f, key, required).flatMap(n -> string(n, f.path(key)));
  }

  Optional<String> string(Node node, String path) {
    if (!(node instanceof ScalarNode)) {
      error(node, path, "expected a string, got " + kind(node));
      return Optional.empty();
    }
    String v = ((ScalarNode) node).getValue();
    if (v.isBlank()) {
      error(node, path, "must not be empty");
      return Optional.empty();
    }
    return Optional.of(v);
  }

  /**
   * A string key that only the HAMi scheduler reads: a configuration the upstream plugin accepts
   * must load here, so a missing, empty or non-string value is a warning, never an error.
   */
  Optional<String> schedulerOnlyString(Fields f, String key) {
    Optional<Node> v = f.value(key).filter(n -> !n.getTag().equals(Tag.NULL));
    if (v.isEmpty()) {
      Node at = f.value(key).orElse(f.node());
      warnKey(
          at,
          f.path(key),
          (f.value(key).isPresent() ? "has no value" : "is missing")
              + "; only the HAMi scheduler reads it (this device plugin does not), so pods cannot request it");
      return Optional.empty();
    }
    Node n = v.get();
    if (!(n instanceof ScalarNode) || ((ScalarNode) n).getValue().isBlank()) {
      warn(
          n,
          f.path(key),
          (n instanceof ScalarNode ? "is empty" : "expected a string, got " + kind(n))
              + "; only the HAMi scheduler reads it (this device plugin does not)");
      return Optional.empty();
    }
    return Optional.of(((ScalarNode) n).getValue());
  }

  /** A memory size in MiB (integer MiB or quantity), see {@link MemoryQuantity}. */
  Optional<Long> memoryMib(Fields f, String key, boolean required) {
    return present(f, key, required).flatMap(n -> memoryMib(n, f.path(key)));
  }

  private Optional<Long> memoryMib(Node node, String path) {
    if (!(node instanceof ScalarNode)) {
      error(node, path, "expected a size in MiB, got " + kind(node));
      return Optional.empty();
    }
    try {
      MemoryQuantity.Mib mib = MemoryQuantity.parse(((ScalarNode) node).getValue());
      if (mib.quantity()) {
        warn(
            node,
            path,
            "read as "
                + mib.mib()
                + " MiB; HAMi's scheduler reads only integers of"
                + " MiB here, write "
                + mib.mib()
                + " if it shares this file");
      }
      return Optional.of(mib.mib());
    } catch (MemoryQuantity.InvalidSize e) {
      error(node, path, e.getMessage());
      return Optional.empty();
    }
  }

  /** A Go int32 value of at least {@code min}. */
  Optional<Integer> int32(Fields f, String key, boolean required, int min) {
    return present(f, key, required).flatMap(n -> int32(n, f.path(key), min));
  }

  /**
   * An optional Go int32 value of at least {@code min}: {@code absent} when the key is missing or
   * null, empty when the value is invalid.
   */
  Optional<Integer> optionalInt32(Fields f, String key, int min, int absent) {
    Optional<Node> n = present(f, key, false);
    return n.isEmpty() ? Optional.of(absent) : int32(n.get(), f.path(key), min);
  }

  Optional<Integer> int32(Node node, String path, int min) {
    if (!(node instanceof ScalarNode)
        || !INTEGER.matcher(((ScalarNode) node).getValue()).matches()) {
      error(node, path, "not an integer");
      return Optional.empty();
    }
    String text = ((ScalarNode) node).getValue();
    // BigInteger parsing is quadratic in the digits: a huge literal is an overflow without parsing
    BigInteger v =
        significantDigits(text) > 12 ? BigInteger.ONE.shiftLeft(64) : new BigInteger(text);
    if (v.bitLength() > 31) {
      error(
          node,
          path,
          "overflows the 32-bit integer HAMi uses ("
              + Integer.MIN_VALUE
              + ".."
              + Integer.MAX_VALUE
              + ")");
      return Optional.empty();
    }
    if (v.intValue() < min) {
      error(node, path, min == 1 ? "must be > 0" : "must be >= " + min);
      return Optional.empty();
    }
    return Optional.of(v.intValue());
  }

  /** Digits of an integer literal without its sign and leading zeros. */
  static int significantDigits(String integer) {
    int i = 0;
    while (i < integer.length()
        && (integer.charAt(i) == '+' || integer.charAt(i) == '-' || integer.charAt(i) == '0')) i++;
    return integer.length() - i;
  }

  /** A YAML boolean ({@code true}/{@code false}, YAML 1.1 also {@code yes/no/on/off}). */
  Optional<Boolean> bool(Fields f, String key) {
    return present(f, key, false)
        .flatMap(
            n -> {
              if (n instanceof ScalarNode && n.getTag().equals(Tag.BOOL)) {
                String v = ((ScalarNode) n).getValue().toLowerCase(Locale.ROOT);
                return Optional.of(v.equals("true") || v.equals("yes") || v.equals("on"));
              }
              error(n, f.path(key), "not a boolean (true or false)");
              return Optional.empty();
            });
  }

  /** The value under a key; a missing or null value is an error when required. */
  Optional<Node> present(Fields f, String key, boolean required) {
    Optional<Node> v = f.value(key).filter(n -> !n.getTag().equals(Tag.NULL));
    if (v.isEmpty() && required) {
      Node at = f.value(key).orElse(f.node());
      errors.add(
          new ConfigProblem(
              file,
              line(at),
              f.path(key),
              Optional.empty(),
              f.value(key).isPresent() ? "required key has no value" : "required key is missing"));
    }
    return v;
  }

  private static Optional<String> valueOf(Node node) {
    if (!(node instanceof ScalarNode)) return Optional.empty();
    String v = ((ScalarNode) node).getValue();
    // a megabyte literal must not become a megabyte error line
    if (v.length() > MAX_SHOWN_CHARS) {
      v = v.substring(0, MAX_SHOWN_CHARS) + "... (" + v.length() + " characters)";
    }
    return Optional.of(v.isEmpty() || !v.strip().equals(v) ? '"' + v + '"' : v);
  }

  private static String kind(Node node) {
    if (node instanceof MappingNode) return "a mapping";
    if (node instanceof SequenceNode) return "a list";
    return "a scalar";
  }

  private static String fold(String key) {
    return key.toLowerCase(Locale.ROOT);
  }
}
