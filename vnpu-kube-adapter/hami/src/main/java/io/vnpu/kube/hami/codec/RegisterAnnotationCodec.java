package io.vnpu.kube.hami.codec;

import io.vnpu.kube.json.JsonMappers;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Encodes and decodes the node register annotation {@code hami.io/node-register-<cw>} (protocol
 * spec section 2.2). Encoding reproduces Go {@code encoding/json} over HAMi's {@code DeviceInfo}
 * byte for byte: field order {@code id, index, count, devmem, devcore, type, numa, mode,
 * migtemplate, health, devicevendor, custominfo, devicepairscore}, {@code omitempty} on zero
 * values. Decoding matches field names case-insensitively and ignores unknown fields, as Go does.
 */
public final class RegisterAnnotationCodec {
  private final boolean emitDevicePairScore;
  private final JsonMapper mapper = JsonMappers.compact();

  /**
   * @param emitDevicePairScore true to append {@code "devicepairscore":{}} to every device, as the
   *     HAMi versions pinned by ascend-device-plugin v1.3.0/v1.4.0 do; false for HAMi after Aug
   *     2026
   */
  public RegisterAnnotationCodec(boolean emitDevicePairScore) {
    this.emitDevicePairScore = emitDevicePairScore;
  }

  /** The JSON array for {@code devices}; {@code []} when empty. */
  public String encode(List<RegisterDevice> devices) {
    StringBuilder out = new StringBuilder(256 * Math.max(1, devices.size()));
    out.append('[');
    for (int i = 0; i < devices.size(); i++) {
      if (i > 0) out.append(',');
      encodeOne(out, devices.get(i));
    }
    return out.append(']').toString();
  }

  private void encodeOne(StringBuilder out, RegisterDevice d) {
    out.append('{');
    Fields f = new Fields(out);
    if (!d.id().isEmpty()) f.string("id", d.id());
    if (d.index() != 0) f.number("index", d.index());
    if (d.count() != 0) f.number("count", d.count());
    if (d.devmem() != 0) f.number("devmem", d.devmem());
    if (d.devcore() != 0) f.number("devcore", d.devcore());
    if (!d.type().isEmpty()) f.string("type", d.type());
    if (d.numa() != 0) f.number("numa", d.numa());
    if (!d.mode().isEmpty()) f.string("mode", d.mode());
    if (d.health()) f.raw("health", "true");
    if (!d.deviceVendor().isEmpty()) f.string("devicevendor", d.deviceVendor());
    if (d.networkId().isPresent()) {
      f.raw("custominfo", "{\"NetworkID\":" + d.networkId().getAsInt() + "}");
    }
    if (emitDevicePairScore) f.raw("devicepairscore", "{}");
    out.append('}');
  }

  /**
   * Decodes a register annotation value.
   *
   * @throws HamiFormatException when the value is not a JSON array of objects or a field has the
   *     wrong type; the message quotes the field
   */
  public List<RegisterDevice> decode(String json) throws HamiFormatException {
    JsonNode root;
    try {
      root = mapper.readTree(json);
    } catch (JacksonException e) {
      throw new HamiFormatException("node register annotation is not valid JSON: " + json, e);
    }
    if (root == null || !root.isArray()) {
      throw new HamiFormatException("node register annotation must be a JSON array: " + json);
    }
    List<RegisterDevice> out = new ArrayList<>();
    for (JsonNode el : root) {
      if (!el.isObject()) {
        throw new HamiFormatException("node register annotation element is not an object: " + el);
      }
      String id = "";
      String type = "";
      String mode = "";
      String vendor = "";
      int index = 0;
      int count = 0;
      int devmem = 0;
      int devcore = 0;
      int numa = 0;
      boolean health = false;
      OptionalInt networkId = OptionalInt.empty();
      for (Map.Entry<String, JsonNode> e : el.properties()) {
        JsonNode v = e.getValue();
        switch (e.getKey().toLowerCase(Locale.ROOT)) {
          case "id" -> id = text(e.getKey(), v);
          case "index" -> index = int32(e.getKey(), v);
          case "count" -> count = int32(e.getKey(), v);
          case "devmem" -> devmem = int32(e.getKey(), v);
          case "devcore" -> devcore = int32(e.getKey(), v);
          case "type" -> type = text(e.getKey(), v);
          case "numa" -> numa = int32(e.getKey(), v);
          case "mode" -> mode = text(e.getKey(), v);
          case "health" -> {
            if (!v.isBoolean())
              throw new HamiFormatException("field " + e.getKey() + " must be a boolean: " + v);
            health = v.booleanValue();
          }
          case "devicevendor" -> vendor = text(e.getKey(), v);
          case "custominfo" -> networkId = networkId(v);
          default -> {
            /* unknown fields are ignored, as Go's decoder does */
          }
        }
      }
      out.add(
          new RegisterDevice(
              id, index, count, devmem, devcore, type, numa, mode, health, vendor, networkId));
    }
    return List.copyOf(out);
  }

  private static OptionalInt networkId(JsonNode custom) throws HamiFormatException {
    if (custom == null || custom.isNull()) return OptionalInt.empty();
    for (Map.Entry<String, JsonNode> e : custom.properties()) {
      if (e.getKey().equalsIgnoreCase("NetworkID"))
        return OptionalInt.of(int32(e.getKey(), e.getValue()));
    }
    return OptionalInt.empty();
  }

  private static String text(String field, JsonNode v) throws HamiFormatException {
    if (v.isNull()) return "";
    if (!v.isString()) throw new HamiFormatException("field " + field + " must be a string: " + v);
    return v.stringValue();
  }

  private static int int32(String field, JsonNode v) throws HamiFormatException {
    if (v.isNull()) return 0;
    if (!v.isIntegralNumber() || !v.canConvertToInt()) {
      throw new HamiFormatException("field " + field + " must be an int32: " + v);
    }
    return v.intValue();
  }

  /** Appends {@code "name":value} pairs with commas in between. */
  private static final class Fields {
    private final StringBuilder out;
    private boolean first = true;

    Fields(StringBuilder out) {
      this.out = out;
    }

    private void name(String name) {
      if (!first) out.append(',');
      first = false;
      GoJson.appendQuoted(out, name);
      out.append(':');
    }

    void string(String name, String value) {
      name(name);
      GoJson.appendQuoted(out, value);
    }

    void number(String name, long value) {
      name(name);
      out.append(value);
    }

    void raw(String name, String json) {
      name(name);
      out.append(json);
    }
  }
}
