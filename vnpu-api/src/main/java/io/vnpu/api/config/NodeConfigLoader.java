package io.vnpu.api.config;

import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads HAMi's per-node configuration: a {@code node-config.yaml} file ({@code nodes[].name},
 * {@code hami-vnpu-core}, {@code vDeviceCount}, {@code filterDevices.{index,uuid}}) or a ConfigMap
 * manifest holding it under data key {@value #CONFIGMAP_KEY} (HAMi's {@code
 * hami-device-node-config}). Keys match case-insensitively as HAMi reads them.
 */
public final class NodeConfigLoader {
  /** Data key of the ConfigMap form, and the file name the HAMi plugin mounts. */
  public static final String CONFIGMAP_KEY = "node-config.yaml";

  private static final Logger LOG = LoggerFactory.getLogger(NodeConfigLoader.class);

  private final Consumer<ConfigProblem> warningSink;

  /** A loader that logs warnings at WARN level. */
  public NodeConfigLoader() {
    this(w -> LOG.warn("{}", w));
  }

  /** A loader that hands each warning to a sink. */
  public NodeConfigLoader(Consumer<ConfigProblem> warningSink) {
    this.warningSink = Objects.requireNonNull(warningSink, "warningSink");
  }

  /**
   * Loads a file.
   *
   * @throws ConfigException listing every error (file unreadable, YAML syntax, schema, values)
   */
  public Loaded<NodeConfig> load(Path file) {
    return parse(ConfigFiles.read(file), file.toString());
  }

  /**
   * Loads configuration text.
   *
   * @param yaml the text of a {@code node-config.yaml} or a ConfigMap manifest
   * @param file name used in problems
   * @throws ConfigException listing every error
   */
  public Loaded<NodeConfig> parse(String yaml, String file) {
    ConfigDocument doc = ConfigDocument.read(yaml, file, CONFIGMAP_KEY);
    ConfigReader reader = new ConfigReader(file, doc.lineOffset());
    var config = new NodeConfigParser(reader).parse(doc.root());
    reader.warnings().forEach(warningSink);
    if (config.isEmpty()) throw new ConfigException(reader.errors(), reader.warnings(), null);
    return new Loaded<>(config.get(), reader.warnings());
  }
}
