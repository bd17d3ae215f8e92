package io.vnpu.api.fault;

import io.vnpu.api.config.ConfigProblem;
import io.vnpu.api.health.FaultCode;
import io.vnpu.api.health.FaultLevel;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The fault-code table of {@code faultCode.json}: the level of every known code (vnpu DCMI spec
 * section 3.5). The file is a JSON object whose keys are the level lists ({@code
 * NotHandleFaultCodes}, {@code RestartRequestCodes}, {@code RestartBusinessCodes}, {@code
 * FreeRestartNPUCodes}, {@code RestartNPUCodes}, {@code SeparateNPUCodes}, {@code
 * PreSeparateNPUCodes}, {@code SubHealthFaultCodes}) and whose values are arrays of hex codes (with
 * or without {@code 0x}, any case).
 *
 * @param levels level by code
 * @param warnings non-fatal findings of the load (unknown keys)
 */
public record FaultCodeTable(Map<FaultCode, FaultLevel> levels, List<ConfigProblem> warnings) {
  /** The parameter-plane network codes, graded into network health instead of chip health. */
  public static final Set<FaultCode> NETWORK_CODES =
      Set.of(
          FaultCode.LINK_DOWN,
          new FaultCode(0x81078607L),
          new FaultCode(0x110000002L),
          new FaultCode(0x110001024L));

  public FaultCodeTable {
    levels = Map.copyOf(levels);
    warnings = List.copyOf(warnings);
  }

  /** The level {@code faultCode.json} gives the code, if it lists it. */
  public Optional<FaultLevel> level(FaultCode code) {
    return Optional.ofNullable(levels.get(code));
  }

  /**
   * The level of a code: from the table; for an unknown code from the event severity (2 major or 3
   * critical, or no severity known: SeparateNPU; 0 or 1: NotHandleFault); for an unknown network
   * code PreSeparateNPU.
   *
   * @param severity {@code dcmi_dms_fault_event.severity}, or -1 when unknown
   */
  public FaultLevel levelOf(FaultCode code, int severity) {
    FaultLevel known = levels.get(code);
    if (known != null) return known;
    if (isNetwork(code)) return FaultLevel.PRE_SEPARATE_NPU;
    if (severity == 0 || severity == 1) return FaultLevel.NOT_HANDLE_FAULT;
    return FaultLevel.SEPARATE_NPU;
  }

  /** The code belongs to the parameter-plane network. */
  public static boolean isNetwork(FaultCode code) {
    return NETWORK_CODES.contains(code);
  }

  /**
   * Parses {@code faultCode.json}.
   *
   * @param file name used in problems
   * @param lineOffset added to every line (for a document embedded in a manifest)
   * @throws io.vnpu.api.config.ConfigException listing every bad line
   */
  public static FaultCodeTable parse(String file, String json, int lineOffset) {
    Problems problems = new Problems(file);
    LinedJson root = LinedJson.parse(file, json, lineOffset);
    Map<FaultCode, FaultLevel> levels = new HashMap<>();
    Map<FaultCode, Integer> lineOf = new HashMap<>();
    Map<String, LinedJson> obj = root.asObject().orElse(null);
    if (obj == null) {
      problems.error(
          root,
          "",
          "must be a JSON object of level lists, e.g. {\"RestartNPUCodes\": [\"40F84E00\"]}");
      problems.throwIfAny();
    }
    for (Map.Entry<String, LinedJson> e : obj.entrySet()) {
      Optional<FaultLevel> level = levelOfKey(e.getKey());
      if (level.isEmpty()) {
        problems.warn(
            e.getValue(),
            e.getKey(),
            "unknown key, ignored (level lists end in Codes, e.g. RestartNPUCodes)");
        continue;
      }
      List<LinedJson> codes = e.getValue().asArray().orElse(null);
      if (codes == null) {
        problems.error(e.getValue(), e.getKey(), "must be an array of hex codes");
        continue;
      }
      for (int i = 0; i < codes.size(); i++) {
        LinedJson c = codes.get(i);
        String path = e.getKey() + "[" + i + "]";
        Optional<String> text = c.asString();
        if (text.isEmpty()) {
          problems.error(c, path, "must be a string of hex digits, e.g. \"80E01801\"");
          continue;
        }
        FaultCode code;
        try {
          code = FaultCode.parse(text.get());
        } catch (IllegalArgumentException ex) {
          problems.error(c, path, "not a hex fault code (e.g. \"80E01801\")");
          continue;
        }
        FaultLevel before = levels.get(code);
        if (before == null) {
          levels.put(code, level.get());
          lineOf.put(code, c.line());
        } else if (before != level.get()) {
          // MindCluster's own file lists some codes under two levels: the more severe one wins
          FaultLevel kept = before.max(level.get());
          problems.warn(
              c,
              path,
              "code "
                  + code.hex()
                  + " is also listed as "
                  + before.term()
                  + " on line "
                  + lineOf.get(code)
                  + "; "
                  + kept.term()
                  + " applies");
          levels.put(code, kept);
        }
      }
    }
    problems.throwIfAny();
    return new FaultCodeTable(levels, problems.warnings());
  }

  private static Optional<FaultLevel> levelOfKey(String key) {
    for (FaultLevel l : FaultLevel.values()) {
      if (l.codesKey().filter(key::equals).isPresent()) return Optional.of(l);
    }
    return Optional.empty();
  }
}
