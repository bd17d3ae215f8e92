package io.vnpu.kube.hami.codec;

import io.vnpu.kube.json.JsonMappers;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Codec for the RuntimeInfo JSON array in pod annotation {@code huawei.com/<cw>} (protocol spec
 * section 3.3), for all three HAMi generations. Keys are read case-insensitively (Go {@code
 * encoding/json} semantics) and written exactly as {@code UUID}, {@code temp}, {@code memory},
 * {@code core}, each omitted when empty.
 */
public final class RuntimeInfoCodec {
  private final JsonMapper mapper = JsonMappers.compact();

  /** Encodes entries in order, e.g. {@code [{"UUID":"U","temp":"vir05_1c_16g"}]}. */
  public static String encode(List<RuntimeInfo> entries) {
    StringBuilder out = new StringBuilder("[");
    for (int i = 0; i < entries.size(); i++) {
      RuntimeInfo e = entries.get(i);
      if (i > 0) out.append(',');
      out.append('{');
      boolean first = true;
      if (!e.uuid().isEmpty()) {
        out.append("\"UUID\":");
        GoJson.appendQuoted(out, e.uuid());
        first = false;
      }
      if (!e.temp().isEmpty()) {
        out.append(first ? "" : ",").append("\"temp\":");
        GoJson.appendQuoted(out, e.temp());
        first = false;
      }
      if (e.memory().isPresent()) {
        out.append(first ? "" : ",").append("\"memory\":").append(e.memory().getAsInt());
        first = false;
      }
      if (e.core().isPresent()) {
        out.append(first ? "" : ",").append("\"core\":").append(e.core().getAsInt());
      }
      out.append('}');
    }
    return out.append(']').toString();
  }

  /**
   * Decodes the annotation into a map keyed by UUID, in annotation order; entries with an empty
   * UUID are dropped.
   *
   * @param key the annotation key, used in messages
   * @param value the annotation value, empty when the pod lacks the annotation
   * @throws HamiFormatException {@code annotation <key> not set} when absent, or {@code annotation
   *     <key> value "<v>" invalid: ...} when it is not an array of objects with string {@code
   *     UUID}/{@code temp} and int32 {@code memory}/{@code core}
   */
  public Map<String, RuntimeInfo> decode(String key, Optional<String> value)
      throws HamiFormatException {
    Map<String, RuntimeInfo> out = new LinkedHashMap<>();
    for (RuntimeInfo e : decodeEntries(key, value)) out.put(e.uuid(), e);
    return out;
  }

  /**
   * Decodes the annotation into its entries, in annotation order (one per allocated device, across
   * all containers in container order: two containers on one NPU give two entries with its UUID);
   * entries with an empty UUID are dropped.
   *
   * @throws HamiFormatException as {@link #decode}
   */
  public List<RuntimeInfo> decodeEntries(String key, Optional<String> value)
      throws HamiFormatException {
    if (value.isEmpty()) throw new HamiFormatException("annotation " + key + " not set");
    String v = value.get();
    JsonNode root;
    try {
      root = mapper.readTree(v);
    } catch (JacksonException e) {
      throw new HamiFormatException(invalid(key, v, e.getOriginalMessage()), e);
    }
    if (root == null || !root.isArray())
      throw new HamiFormatException(invalid(key, v, "not a JSON array"));
    List<RuntimeInfo> out = new ArrayList<>();
    for (JsonNode el : root) {
      if (!el.isObject())
        throw new HamiFormatException(invalid(key, v, "element " + el + " is not an object"));
      String uuid = "";
      String temp = "";
      OptionalInt memory = OptionalInt.empty();
      OptionalInt core = OptionalInt.empty();
      for (Map.Entry<String, JsonNode> f : el.properties()) {
        JsonNode fv = f.getValue();
        switch (f.getKey().toLowerCase(Locale.ROOT)) {
          case "uuid" -> uuid = text(key, v, f.getKey(), fv);
          case "temp" -> temp = text(key, v, f.getKey(), fv);
          case "memory" -> memory = int32(key, v, f.getKey(), fv);
          case "core" -> core = int32(key, v, f.getKey(), fv);
          default -> {
            /* unknown keys are ignored, as Go's decoder does */
          }
        }
      }
      if (uuid.isEmpty()) continue;
      out.add(new RuntimeInfo(uuid, temp, memory, core));
    }
    return out;
  }

  private static String invalid(String key, String value, String why) {
    return "annotation " + key + " value \"" + value + "\" invalid: " + why;
  }

  private static String text(String key, String v, String field, JsonNode fv)
      throws HamiFormatException {
    if (fv.isNull()) return "";
    if (!fv.isString())
      throw new HamiFormatException(invalid(key, v, "field " + field + " must be a string"));
    return fv.stringValue();
  }

  private static OptionalInt int32(String key, String v, String field, JsonNode fv)
      throws HamiFormatException {
    if (fv.isNull()) return OptionalInt.empty();
    if (!fv.isIntegralNumber() || !fv.canConvertToInt()) {
      throw new HamiFormatException(invalid(key, v, "field " + field + " must be an int32"));
    }
    return OptionalInt.of(fv.intValue());
  }
}
