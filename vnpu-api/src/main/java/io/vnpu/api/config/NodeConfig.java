package io.vnpu.api.config;

import java.util.List;
import java.util.Optional;

/**
 * HAMi's per-node configuration ({@code node-config.yaml}, ConfigMap {@code
 * hami-device-node-config}).
 *
 * @param nodes node entries in file order
 */
public record NodeConfig(List<NodeSettings> nodes) {
  public static final NodeConfig EMPTY = new NodeConfig(List.of());

  public NodeConfig {
    nodes = List.copyOf(nodes);
  }

  /** The first entry with that node name (HAMi: first match wins). */
  public Optional<NodeSettings> forNode(String nodeName) {
    return nodes.stream().filter(n -> n.name().equals(nodeName)).findFirst();
  }
}
