package io.vnpu.kube.json;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.cfg.EnumFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The adapter's Jackson 3 mappers, with the rules every JSON the adapter writes or reads shares.
 *
 * <p>Jackson 3 changed defaults that matter here, so they are set explicitly:
 *
 * <ul>
 *   <li>Properties are written in declaration order (record components, then map insertion order),
 *       not sorted: the HAMi annotations, the MindCluster {@code DeviceInfoCfg} (whose SHA-256 is
 *       its {@code CheckCode}), CDI specs and checkpoints have a fixed field order that other
 *       components compare byte for byte.
 *   <li>An unknown property fails a typed read unless the type (or the caller) ignores unknowns: a
 *       CDI spec read back must be one this build wrote.
 *   <li>Enum constants are written and read by {@code name()}, as Jackson 2 did; Jackson 3 uses
 *       {@code toString()} by default, which would silently change a format the day an enum gets a
 *       display {@code toString()}.
 *   <li>A JSON {@code null} for a primitive reads as its default (0, false) and content after the
 *       first document is not read, as the annotations' readers have always accepted.
 * </ul>
 */
public final class JsonMappers {

  private JsonMappers() {}

  /** A builder with the rules above, for callers that need one more setting. */
  public static JsonMapper.Builder builder() {
    return JsonMapper.builder()
        .disable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .disable(EnumFeature.WRITE_ENUMS_USING_TO_STRING)
        .disable(EnumFeature.READ_ENUMS_USING_TO_STRING);
  }

  /** Compact output, one line. */
  public static JsonMapper compact() {
    return builder().build();
  }

  /** Indented output, for files people read (CDI specs) and the CLI's {@code --json}. */
  public static JsonMapper indented() {
    return builder().enable(SerializationFeature.INDENT_OUTPUT).build();
  }
}
