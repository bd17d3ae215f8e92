package io.vnpu.kube.dra.config;

import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.SharingPolicy;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Strict decoding of {@code config[].opaque.parameters} into {@link NpuConfig}: an unknown field, a
 * value of the wrong type or out of range, another {@code apiVersion} or {@code kind} is an error
 * naming the field and the value, never ignored (a setting silently dropped would run a workload
 * with limits it did not ask for).
 */
public final class NpuConfigDecoder {

  /** Fields of {@link NpuConfig}, in the order the error messages list them. */
  static final List<String> FIELDS =
      List.of(
          "apiVersion",
          "kind",
          "sharing",
          "computeWeight",
          "computeCap",
          "priority",
          "memoryOnly",
          "policy");

  private final ObjectMapper json = io.vnpu.kube.json.JsonMappers.compact();

  /**
   * @param parameters the {@code parameters} value as the API client decoded it (a map)
   * @param where the path of the {@code parameters} field for messages, e.g. {@code ResourceClaim
   *     demo/c: status.allocation.devices.config[1].opaque.parameters}
   * @throws ConfigDecodeException naming {@code where}, the field and the value
   */
  public NpuConfig decode(Object parameters, String where) throws ConfigDecodeException {
    JsonNode n = parameters instanceof JsonNode j ? j : json.valueToTree(parameters);
    if (n == null || !n.isObject()) {
      throw new ConfigDecodeException(
          where
              + " = "
              + shown(n)
              + ": not an object (expected"
              + " apiVersion: "
              + NpuConfig.API_VERSION
              + ", kind: "
              + NpuConfig.KIND
              + ")");
    }
    for (Map.Entry<String, JsonNode> f : n.properties()) {
      if (!FIELDS.contains(f.getKey())) {
        throw new ConfigDecodeException(
            where
                + "."
                + shown(f.getKey())
                + " = "
                + shown(f.getValue())
                + ": unknown field (known: "
                + String.join(", ", FIELDS)
                + ")");
      }
    }
    String apiVersion = text(n, "apiVersion", where, true);
    if (!NpuConfig.API_VERSION.equals(apiVersion)) {
      throw new ConfigDecodeException(
          where + ".apiVersion = " + shown(apiVersion) + ": expected " + NpuConfig.API_VERSION);
    }
    String kind = text(n, "kind", where, true);
    if (!NpuConfig.KIND.equals(kind)) {
      throw new ConfigDecodeException(
          where + ".kind = " + shown(kind) + ": expected " + NpuConfig.KIND);
    }
    String sharingText = text(n, "sharing", where, false);
    NpuConfig.Sharing sharing = null;
    if (sharingText != null) {
      sharing =
          switch (sharingText) {
            case "soft" -> NpuConfig.Sharing.SOFT;
            case "hard" -> NpuConfig.Sharing.HARD;
            case "whole" -> NpuConfig.Sharing.WHOLE;
            default ->
                throw new ConfigDecodeException(
                    where + ".sharing = " + shown(sharingText) + ": expected soft, hard or whole");
          };
    }
    Integer weight = integer(n, "computeWeight", where, 1, 10000);
    Integer cap = integer(n, "computeCap", where, 0, 100);
    String priorityText = text(n, "priority", where, false);
    Priority priority = null;
    if (priorityText != null) {
      priority =
          switch (priorityText) {
            case "high" -> Priority.HIGH;
            case "normal" -> Priority.NORMAL;
            default ->
                throw new ConfigDecodeException(
                    where + ".priority = " + shown(priorityText) + ": expected high or normal");
          };
    }
    Boolean memoryOnly = null;
    JsonNode mo = n.get("memoryOnly");
    if (mo != null && !mo.isNull()) {
      if (!mo.isBoolean()) {
        throw new ConfigDecodeException(
            where + ".memoryOnly = " + shown(mo) + ": not true or false");
      }
      memoryOnly = mo.booleanValue();
    }
    if (Boolean.TRUE.equals(memoryOnly) && (weight != null || cap != null)) {
      throw new ConfigDecodeException(
          where
              + ".memoryOnly = true: computeWeight and computeCap"
              + " cannot be set with it (memory-only shares are not compute-limited)");
    }
    String policyText = text(n, "policy", where, false);
    SharingPolicy policy = null;
    if (policyText != null) {
      policy =
          SharingPolicy.fromWireName(policyText)
              .orElseThrow(
                  () ->
                      new ConfigDecodeException(
                          where
                              + ".policy = "
                              + shown(policyText)
                              + ": expected "
                              + SharingPolicy.wireNames()));
    }
    return new NpuConfig(sharing, weight, cap, priority, memoryOnly, policy);
  }

  private static String text(JsonNode n, String field, String where, boolean required)
      throws ConfigDecodeException {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw new ConfigDecodeException(
            where
                + "."
                + field
                + ": missing (expected "
                + ("kind".equals(field) ? NpuConfig.KIND : NpuConfig.API_VERSION)
                + ")");
      }
      return null;
    }
    if (!v.isString()) {
      throw new ConfigDecodeException(where + "." + field + " = " + shown(v) + ": not a string");
    }
    return v.stringValue();
  }

  private static Integer integer(JsonNode n, String field, String where, int min, int max)
      throws ConfigDecodeException {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() < min || v.intValue() > max) {
      throw new ConfigDecodeException(
          where + "." + field + " = " + shown(v) + ": not an integer in " + min + ".." + max);
    }
    return v.intValue();
  }

  /** Longest value an error message shows, in characters ({@link io.vnpu.kube.errors.Shown}). */
  static final int SHOWN_CHARS = io.vnpu.kube.errors.Shown.MAX_CHARS;

  /**
   * A value of the claim as an error message shows it ({@link io.vnpu.kube.errors.Shown#value}).
   */
  static String shown(String text) {
    return io.vnpu.kube.errors.Shown.value(text);
  }

  private static String shown(JsonNode v) {
    return shown(String.valueOf(v));
  }

  /** Lower-case name of a sharing mode, as written in {@code parameters}. */
  public static String name(NpuConfig.Sharing s) {
    return s.name().toLowerCase(Locale.ROOT);
  }
}
