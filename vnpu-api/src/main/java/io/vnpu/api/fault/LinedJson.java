package io.vnpu.api.fault;

import io.vnpu.api.config.ConfigException;
import io.vnpu.api.config.ConfigProblem;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.core.json.JsonFactory;

/**
 * A JSON value with the line it starts on, so that a bad entry of {@code faultCode.json} or {@code
 * faultCustomization.json} is reported as {@code file:line: path = value: reason}.
 *
 * @param value a {@code Map<String, LinedJson>}, {@code List<LinedJson>}, {@code String}, {@code
 *     Long}, {@code Double}, {@code Boolean} or null
 * @param line 1-based line in the file (plus the caller's offset)
 * @param raw the value as written, for error messages (scalars only)
 */
record LinedJson(Object value, int line, String raw) {
  private static final JsonFactory JSON = JsonFactory.builder().build();

  /**
   * Parses a whole document.
   *
   * @param lineOffset added to every line (the line of the embedded document in a manifest, minus
   *     1)
   * @throws ConfigException with the line of a syntax error
   */
  static LinedJson parse(String file, String text, int lineOffset) {
    try (JsonParser p = JSON.createParser(ObjectReadContext.empty(), text)) {
      if (p.nextToken() == null) {
        throw new ConfigException(
            List.of(
                new ConfigProblem(
                    file, 0, "", Optional.empty(), "empty document: expected a JSON object")));
      }
      LinedJson root = read(p, lineOffset);
      if (p.nextToken() != null) {
        throw new ConfigException(
            List.of(
                new ConfigProblem(
                    file,
                    p.currentTokenLocation().getLineNr() + lineOffset,
                    "",
                    Optional.empty(),
                    "unexpected content after the JSON document")));
      }
      return root;
    } catch (StreamReadException e) {
      int line =
          e.getLocation() == null ? 0 : Math.max(0, e.getLocation().getLineNr() + lineOffset);
      throw new ConfigException(
          List.of(
              new ConfigProblem(
                  file, line, "", Optional.empty(), "not valid JSON: " + e.getOriginalMessage())));
    } catch (JacksonException e) {
      throw new ConfigException(
          List.of(
              new ConfigProblem(file, 0, "", Optional.empty(), "cannot read: " + e.getMessage())),
          e);
    }
  }

  private static LinedJson read(JsonParser p, int off) {
    int line = p.currentTokenLocation().getLineNr() + off;
    JsonToken t = p.currentToken();
    switch (t) {
      case START_OBJECT -> {
        Map<String, LinedJson> m = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
          String key = p.currentName();
          p.nextToken();
          m.put(key, read(p, off));
        }
        return new LinedJson(m, line, "");
      }
      case START_ARRAY -> {
        List<LinedJson> l = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          l.add(read(p, off));
        }
        return new LinedJson(l, line, "");
      }
      case VALUE_STRING -> {
        return new LinedJson(p.getString(), line, "\"" + p.getString() + "\"");
      }
      case VALUE_NUMBER_INT -> {
        return new LinedJson(p.getLongValue(), line, p.getString());
      }
      case VALUE_NUMBER_FLOAT -> {
        return new LinedJson(p.getDoubleValue(), line, p.getString());
      }
      case VALUE_TRUE, VALUE_FALSE -> {
        return new LinedJson(p.getBooleanValue(), line, p.getString());
      }
      default -> {
        return new LinedJson(null, line, "null");
      }
    }
  }

  @SuppressWarnings("unchecked")
  Optional<Map<String, LinedJson>> asObject() {
    return value instanceof Map ? Optional.of((Map<String, LinedJson>) value) : Optional.empty();
  }

  @SuppressWarnings("unchecked")
  Optional<List<LinedJson>> asArray() {
    return value instanceof List ? Optional.of((List<LinedJson>) value) : Optional.empty();
  }

  Optional<String> asString() {
    return value instanceof String s ? Optional.of(s) : Optional.empty();
  }

  Optional<Long> asLong() {
    return value instanceof Long l ? Optional.of(l) : Optional.empty();
  }

  /** The value for a problem report: scalars as written, containers empty. */
  Optional<String> shown() {
    return raw.isEmpty() ? Optional.empty() : Optional.of(raw);
  }
}
