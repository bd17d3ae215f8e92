package io.vnpu.kube.mindcluster.kube;

import io.vnpu.api.health.SwitchFault;
import io.vnpu.kube.json.JsonMappers;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * How switch faults are graded: {@code SwitchFaultCode.json}, an object whose keys are the level
 * lists ({@code NotHandleFaultCodes}, {@code SubHealthFaultCodes}, {@code RestartRequestCodes},
 * {@code PreSeparateFaultCodes}, {@code SeparateFaultCodes}) and whose values are arrays of
 * assembled codes ({@link SwitchFault#assembledCode()}). A code in no list is graded by severity as
 * chip faults are: 2 major or 3 critical → Separate, else NotHandle. The shipped table ({@code
 * switch-fault-codes.json} beside this class) is vnpu's own choice: port faults towards an NPU,
 * lane reductions and chip-level faults.
 */
public final class SwitchFaultLevels {
  private static final JsonMapper JSON = JsonMappers.compact();

  /** A switch fault's level, least to most severe; {@link #term()} is MindCluster's spelling. */
  public enum Level {
    NOT_HANDLE("NotHandle", "NotHandleFaultCodes", "Healthy"),
    SUB_HEALTH("SubHealthFault", "SubHealthFaultCodes", "SubHealthy"),
    RESTART_REQUEST("RestartRequest", "RestartRequestCodes", "UnHealthy"),
    PRE_SEPARATE("PreSeparate", "PreSeparateFaultCodes", "UnHealthy"),
    SEPARATE("Separate", "SeparateFaultCodes", "UnHealthy");

    private final String term;
    private final String key;
    private final String nodeStatus;

    Level(String term, String key, String nodeStatus) {
      this.term = term;
      this.key = key;
      this.nodeStatus = nodeStatus;
    }

    public String term() {
      return term;
    }

    /** {@code NodeStatus} of a node whose worst switch fault has this level. */
    public String nodeStatus() {
      return nodeStatus;
    }
  }

  private final Map<String, Level> levels;

  private SwitchFaultLevels(Map<String, Level> levels) {
    this.levels = Map.copyOf(levels);
  }

  /** The level of a fault. */
  public Level levelOf(SwitchFault f) {
    Level known = levels.get(f.assembledCode());
    if (known != null) return known;
    return f.severity() >= 2 ? Level.SEPARATE : Level.NOT_HANDLE;
  }

  /**
   * Parses a {@code SwitchFaultCode.json} document.
   *
   * @param source named in errors, e.g. the file path
   * @throws IllegalArgumentException naming the source, key and value that are wrong
   */
  public static SwitchFaultLevels parse(String json, String source) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JacksonException e) {
      throw new IllegalArgumentException(source + ": not JSON: " + e.getOriginalMessage());
    }
    if (root == null || !root.isObject())
      throw new IllegalArgumentException(source + ": must be a JSON object");
    Map<String, Level> out = new TreeMap<>();
    for (Level l : Level.values()) {
      JsonNode list = root.get(l.key);
      if (list == null) continue;
      if (!list.isArray())
        throw new IllegalArgumentException(source + ": " + l.key + " must be an array of codes");
      for (JsonNode c : list) {
        if (!c.isString())
          throw new IllegalArgumentException(
              source + ": " + l.key + " = " + c + ": not a code string");
        out.merge(c.asString(), l, (a, b) -> a.compareTo(b) >= 0 ? a : b);
      }
    }
    return new SwitchFaultLevels(out);
  }

  /** The shipped table. */
  public static SwitchFaultLevels shipped() {
    try (InputStream in = SwitchFaultLevels.class.getResourceAsStream("switch-fault-codes.json")) {
      if (in == null)
        throw new IllegalStateException("switch-fault-codes.json missing from the class path");
      return parse(
          new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8),
          "switch-fault-codes.json");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
