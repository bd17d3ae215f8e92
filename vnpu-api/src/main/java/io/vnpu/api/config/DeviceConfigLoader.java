package io.vnpu.api.config;

import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads HAMi's global Ascend device configuration: a {@code device-config.yaml} file in the nested
 * form ({@code vnpus: {hamiVnpuCore, configs: [...]}}) or the legacy flat list ({@code vnpus:
 * [...]}), or a ConfigMap manifest holding it under data key {@value #CONFIGMAP_KEY} (e.g. HAMi's
 * {@code hami-scheduler-device}).
 *
 * <p>Sizes are MiB as in HAMi; quantity strings ({@code 16Gi}) are converted. Keys match
 * case-insensitively as HAMi reads them. Every problem is reported with file, line, YAML path and
 * value; see {@link ConfigProblem}.
 */
public final class DeviceConfigLoader {
  /** Data key of the ConfigMap form, and the file name the HAMi plugin mounts. */
  public static final String CONFIGMAP_KEY = "device-config.yaml";

  private static final Logger LOG = LoggerFactory.getLogger(DeviceConfigLoader.class);

  private final Consumer<ConfigProblem> warningSink;

  /** A loader that logs warnings at WARN level. */
  public DeviceConfigLoader() {
    this(w -> LOG.warn("{}", w));
  }

  /**
   * A loader that hands each warning to a sink (e.g. a CLI that prints them itself).
   *
   * @param warningSink receives each warning of a successful or failed load, in order
   */
  public DeviceConfigLoader(Consumer<ConfigProblem> warningSink) {
    this.warningSink = Objects.requireNonNull(warningSink, "warningSink");
  }

  /**
   * Loads a file.
   *
   * @param file a {@code device-config.yaml} or a ConfigMap manifest (UTF-8)
   * @return the config and its warnings
   * @throws ConfigException listing every error (file unreadable, YAML syntax, schema, values)
   */
  public Loaded<DeviceConfig> load(Path file) {
    return parse(ConfigFiles.read(file), file.toString());
  }

  /**
   * Loads configuration text.
   *
   * @param yaml the text of a {@code device-config.yaml} or a ConfigMap manifest
   * @param file name used in problems
   * @return the config and its warnings
   * @throws ConfigException listing every error
   */
  public Loaded<DeviceConfig> parse(String yaml, String file) {
    ConfigDocument doc = ConfigDocument.read(yaml, file, CONFIGMAP_KEY);
    ConfigReader reader = new ConfigReader(file, doc.lineOffset());
    var config = new DeviceConfigParser(reader).parse(doc.root());
    reader.warnings().forEach(warningSink);
    if (config.isEmpty()) throw new ConfigException(reader.errors(), reader.warnings(), null);
    return new Loaded<>(config.get(), reader.warnings());
  }
}
