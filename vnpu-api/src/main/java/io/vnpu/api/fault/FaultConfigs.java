package io.vnpu.api.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Builds a {@link FaultConfig} from {@code faultCode.json} and {@code faultCustomization.json}
 * documents; a document that is absent takes the shipped default (resources {@code
 * io/vnpu/api/fault/faultCode.json} and {@code faultCustomization.json}).
 *
 * <p>The shipped code table is a small subset of MindCluster's (a few codes of each level, and the
 * codes its default escalation rules name); operators load the full table through the {@code
 * mindx-dl-fault-config} ConfigMap or a file. Codes it does not list are graded by event severity.
 */
public final class FaultConfigs {
  private FaultConfigs() {}

  /** The shipped default configuration. */
  public static FaultConfig shippedDefault() {
    return new FaultConfig(defaultTable(), defaultCustomization(), "shipped default");
  }

  /** The shipped {@code faultCode.json}. */
  public static FaultCodeTable defaultTable() {
    return FaultCodeTable.parse("faultCode.json (shipped)", resource("faultCode.json"), 0);
  }

  /** The shipped {@code faultCustomization.json}. */
  public static FaultCustomization defaultCustomization() {
    return FaultCustomization.parse(
        "faultCustomization.json (shipped)", resource("faultCustomization.json"), 0);
  }

  /**
   * Parses both documents; an absent one takes its shipped default.
   *
   * @param origin where the documents came from, kept in {@link FaultConfig#origin()}
   * @throws io.vnpu.api.config.ConfigException listing every bad line of both documents
   */
  public static FaultConfig parse(
      String origin,
      Optional<FaultConfigDocument> faultCode,
      Optional<FaultConfigDocument> customization) {
    FaultCodeTable table = null;
    FaultCustomization custom = null;
    io.vnpu.api.config.ConfigException first = null;
    try {
      table =
          faultCode
              .map(d -> FaultCodeTable.parse(d.name(), d.text(), d.lineOffset()))
              .orElseGet(FaultConfigs::defaultTable);
    } catch (io.vnpu.api.config.ConfigException e) {
      first = e;
    }
    try {
      custom =
          customization
              .map(d -> FaultCustomization.parse(d.name(), d.text(), d.lineOffset()))
              .orElseGet(FaultConfigs::defaultCustomization);
    } catch (io.vnpu.api.config.ConfigException e) {
      if (first == null) throw e;
      java.util.List<io.vnpu.api.config.ConfigProblem> all =
          new java.util.ArrayList<>(first.errors());
      all.addAll(e.errors());
      throw new io.vnpu.api.config.ConfigException(all);
    }
    if (first != null) throw first;
    return new FaultConfig(table, custom, origin);
  }

  private static String resource(String name) {
    try (InputStream in = FaultConfigs.class.getResourceAsStream(name)) {
      if (in == null)
        throw new IllegalStateException(
            "resource io/vnpu/api/fault/" + name + " missing from the jar");
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
