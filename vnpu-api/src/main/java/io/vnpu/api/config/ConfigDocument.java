package io.vnpu.api.config;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Finds the configuration document in a file's text: the file itself, or the value of one data key
 * of a Kubernetes ConfigMap manifest (also inside a multi-document manifest). Parsing keeps
 * SnakeYAML's marks so that every later problem can name its line in the file.
 *
 * @param root the document's root node
 * @param lineOffset lines before the document's first line in the file (non-zero for a document
 *     embedded in a ConfigMap as a block scalar)
 * @param configMap true when the document came out of a ConfigMap manifest
 */
record ConfigDocument(Node root, int lineOffset, boolean configMap) {

  /**
   * Reads a document.
   *
   * @param text file contents
   * @param file file name for problems
   * @param configMapKey data key of the ConfigMap form, e.g. {@code device-config.yaml}
   * @throws ConfigException on YAML syntax errors, an empty file, or a ConfigMap without the key
   */
  static ConfigDocument read(String text, String file, String configMapKey) {
    List<Node> docs = compose(text, file, 0);
    if (docs.isEmpty()) throw single(file, 0, "", "the file holds no YAML document");
    List<String> otherKeys = new ArrayList<>();
    Node configMapWithoutKey = null;
    for (Node doc : docs) {
      if (!isConfigMap(doc)) continue;
      Optional<Node> data = value(doc, "data");
      if (data.isPresent() && data.get() instanceof MappingNode) {
        Optional<Node> embedded = value(data.get(), configMapKey);
        if (embedded.isPresent()) return embedded(embedded.get(), file, configMapKey);
        for (NodeTuple t : ((MappingNode) data.get()).getValue()) {
          if (t.getKeyNode() instanceof ScalarNode) {
            otherKeys.add(((ScalarNode) t.getKeyNode()).getValue());
          }
        }
      }
      if (configMapWithoutKey == null) configMapWithoutKey = doc;
    }
    if (configMapWithoutKey != null) {
      throw single(
          file,
          configMapWithoutKey.getStartMark().getLine() + 1,
          "data",
          "the ConfigMap has no key "
              + configMapKey
              + (otherKeys.isEmpty() ? "" : " (it has: " + String.join(", ", otherKeys) + ")"));
    }
    if (docs.size() > 1) {
      throw single(
          file,
          0,
          "",
          "holds "
              + docs.size()
              + " YAML documents and none is a ConfigMap"
              + " with key "
              + configMapKey
              + "; give a single "
              + configMapKey
              + " document or a"
              + " ConfigMap manifest");
    }
    return new ConfigDocument(docs.get(0), 0, false);
  }

  private static ConfigDocument embedded(Node value, String file, String key) {
    int line = value.getStartMark().getLine() + 1;
    if (!(value instanceof ScalarNode)) {
      throw single(file, line, "data." + key, "expected the file contents as a string");
    }
    ScalarNode scalar = (ScalarNode) value;
    // A literal block ("|" / "|-") keeps the document's lines one to one, starting on the line
    // after the indicator; other styles fold or escape lines, so their offsets are approximate.
    int offset =
        scalar.getScalarStyle() == DumperOptions.ScalarStyle.LITERAL
            ? scalar.getStartMark().getLine() + 1
            : scalar.getStartMark().getLine();
    List<Node> inner = compose(scalar.getValue(), file, offset);
    if (inner.isEmpty()) throw single(file, line, "data." + key, "is empty");
    if (inner.size() > 1) {
      throw single(
          file, line, "data." + key, "holds " + inner.size() + " YAML documents, expected 1");
    }
    return new ConfigDocument(inner.get(0), offset, true);
  }

  private static List<Node> compose(String text, String file, int offset) {
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(true); // reported by ConfigReader with both lines
    options.setMaxAliasesForCollections(50);
    List<Node> docs = new ArrayList<>();
    // our own reader, so a failure without a mark still has the line the scanner stopped at
    StreamReader reader = new StreamReader(new StringReader(text));
    try {
      Composer composer = new Composer(new ParserImpl(reader, options), new Resolver(), options);
      while (composer.checkNode()) {
        Node n = composer.getNode();
        if (n != null) docs.add(n);
      }
    } catch (MarkedYAMLException e) {
      Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
      int line = (mark == null ? reader.getLine() : mark.getLine()) + 1 + offset;
      String what = e.getProblem() != null ? e.getProblem() : e.getMessage();
      throw new ConfigException(
          List.of(
              problem(
                  file,
                  line,
                  "",
                  "YAML syntax error: "
                      + what
                      + (e.getContext() != null ? " (" + e.getContext() + ")" : ""))),
          e);
    } catch (YAMLException e) {
      throw new ConfigException(
          List.of(
              problem(file, reader.getLine() + 1 + offset, "", "YAML error: " + e.getMessage())),
          e);
    } catch (RuntimeException | StackOverflowError e) {
      // the parser's own failures (a bad backslash-u escape throws NumberFormatException, deep
      // nesting
      // overflows the stack) are syntax errors of the file too, never a crash of the caller
      throw new ConfigException(
          List.of(
              problem(
                  file, reader.getLine() + 1 + offset, "", "YAML syntax error: " + describe(e))),
          e);
    }
    return docs;
  }

  private static String describe(Throwable e) {
    if (e instanceof NumberFormatException)
      return "invalid escape or number (" + e.getMessage() + ")";
    if (e instanceof StackOverflowError) return "nested too deeply";
    return e.getMessage() == null ? "cannot parse" : e.getMessage();
  }

  private static boolean isConfigMap(Node doc) {
    return value(doc, "kind")
        .filter(k -> k instanceof ScalarNode && ((ScalarNode) k).getValue().equals("ConfigMap"))
        .isPresent();
  }

  /** Kubernetes manifest keys are case-sensitive, unlike HAMi's config keys. */
  private static Optional<Node> value(Node mapping, String key) {
    if (!(mapping instanceof MappingNode)) return Optional.empty();
    for (NodeTuple t : ((MappingNode) mapping).getValue()) {
      if (t.getKeyNode() instanceof ScalarNode
          && ((ScalarNode) t.getKeyNode()).getValue().equals(key)) {
        return Optional.of(t.getValueNode());
      }
    }
    return Optional.empty();
  }

  private static ConfigException single(String file, int line, String path, String message) {
    return new ConfigException(List.of(problem(file, line, path, message)));
  }

  private static ConfigProblem problem(String file, int line, String path, String message) {
    return new ConfigProblem(file, line, path, Optional.empty(), message);
  }
}
