package io.vnpu.api.config;

import java.util.Map;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/**
 * The known keys of one YAML mapping, matched case-insensitively and stored under the schema's
 * spelling.
 *
 * @param node the mapping node
 * @param path its YAML path ({@code ""} for the document root)
 * @param values value node by the schema's spelling of the key
 */
record Fields(Node node, String path, Map<String, Node> values) {
  Fields {
    values = Map.copyOf(values);
  }

  Optional<Node> value(String key) {
    return Optional.ofNullable(values.get(key));
  }

  String path(String key) {
    return ConfigReader.child(path, key);
  }
}
