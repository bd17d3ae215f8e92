package io.vnpu.api.fault;

import io.vnpu.api.config.ConfigProblem;
import io.vnpu.api.health.FaultCode;
import io.vnpu.api.health.FaultLevel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code faultCustomization.json} (vnpu DCMI spec section 3.5): grace times and the frequency and
 * duration escalation rules.
 *
 * @param graceTolerance the {@code GraceTolerance} times
 * @param frequency {@code FaultFrequency[]}
 * @param duration {@code FaultDuration[]}
 * @param warnings non-fatal findings of the load
 */
public record FaultCustomization(
    GraceTolerance graceTolerance,
    List<FrequencyRule> frequency,
    List<DurationRule> duration,
    List<ConfigProblem> warnings) {

  /** No escalation rules, default grace times. */
  public static final FaultCustomization NONE =
      new FaultCustomization(GraceTolerance.DEFAULT, List.of(), List.of(), List.of());

  public FaultCustomization {
    frequency = List.copyOf(frequency);
    duration = List.copyOf(duration);
    warnings = List.copyOf(warnings);
  }

  /**
   * {@code GraceTolerance}.
   *
   * @param waitProcessReadCm {@code WaitProcessReadCMTime}, 5..90 s (default 30)
   * @param waitDeviceReset {@code WaitDeviceResetTime}, 60..180 s (default 150): longest wait for a
   *     reset chip to boot
   * @param waitFaultSelfHealing {@code WaitFaultSelfHealingTime}, 1..30 s (default 15)
   */
  public record GraceTolerance(
      Duration waitProcessReadCm, Duration waitDeviceReset, Duration waitFaultSelfHealing) {
    public static final GraceTolerance DEFAULT =
        new GraceTolerance(Duration.ofSeconds(30), Duration.ofSeconds(150), Duration.ofSeconds(15));
  }

  /**
   * A {@code FaultFrequency} rule: {@code times} occurrences of one of {@code codes} on a chip
   * within {@code window} raise the chip to {@code level}; the raise is released when no occurrence
   * was seen for {@code release} (never when empty: only an operator clears it).
   */
  public record FrequencyRule(
      Set<FaultCode> codes,
      Duration window,
      int times,
      FaultLevel level,
      Optional<Duration> release) {
    public FrequencyRule {
      codes = Set.copyOf(codes);
    }
  }

  /**
   * A {@code FaultDuration} rule: one of {@code codes} active without a break for {@code
   * faultTimeout} raises the chip to {@code level}; after the code clears the raise stays until it
   * has stayed clear for {@code recoverTimeout}.
   */
  public record DurationRule(
      Set<FaultCode> codes, Duration faultTimeout, Duration recoverTimeout, FaultLevel level) {
    public DurationRule {
      codes = Set.copyOf(codes);
    }
  }

  /**
   * Parses {@code faultCustomization.json}; absent sections take their defaults.
   *
   * @throws io.vnpu.api.config.ConfigException listing every bad line
   */
  public static FaultCustomization parse(String file, String json, int lineOffset) {
    Problems p = new Problems(file);
    LinedJson root = LinedJson.parse(file, json, lineOffset);
    Map<String, LinedJson> obj = root.asObject().orElse(null);
    if (obj == null) {
      p.error(root, "", "must be a JSON object with GraceTolerance, FaultFrequency, FaultDuration");
      p.throwIfAny();
    }
    GraceTolerance grace = GraceTolerance.DEFAULT;
    List<FrequencyRule> freq = new ArrayList<>();
    List<DurationRule> dur = new ArrayList<>();
    for (Map.Entry<String, LinedJson> e : obj.entrySet()) {
      switch (e.getKey()) {
        case "GraceTolerance" -> grace = grace(p, e.getValue());
        case "FaultFrequency" ->
            eachRule(
                p,
                e.getValue(),
                "FaultFrequency",
                (at, path, r) -> frequencyRule(p, at, path, r).ifPresent(freq::add));
        case "FaultDuration" ->
            eachRule(
                p,
                e.getValue(),
                "FaultDuration",
                (at, path, r) -> durationRule(p, at, path, r).ifPresent(dur::add));
        default -> p.warn(e.getValue(), e.getKey(), "unknown key, ignored");
      }
    }
    p.throwIfAny();
    return new FaultCustomization(grace, freq, dur, p.warnings());
  }

  private interface RuleReader {
    void read(LinedJson at, String path, Map<String, LinedJson> rule);
  }

  private static void eachRule(Problems p, LinedJson v, String key, RuleReader reader) {
    Optional<List<LinedJson>> rules = v.asArray();
    if (rules.isEmpty()) {
      p.error(v, key, "must be an array of rule objects");
      return;
    }
    for (int i = 0; i < rules.get().size(); i++) {
      LinedJson r = rules.get().get(i);
      String path = key + "[" + i + "]";
      Optional<Map<String, LinedJson>> obj = r.asObject();
      if (obj.isEmpty()) {
        p.error(r, path, "must be an object");
      } else {
        reader.read(r, path, obj.get());
      }
    }
  }

  private static GraceTolerance grace(Problems p, LinedJson v) {
    Map<String, LinedJson> o = v.asObject().orElse(null);
    if (o == null) {
      p.error(v, "GraceTolerance", "must be an object");
      return GraceTolerance.DEFAULT;
    }
    GraceTolerance d = GraceTolerance.DEFAULT;
    return new GraceTolerance(
        seconds(p, o, "GraceTolerance", "WaitProcessReadCMTime", 5, 90)
            .orElse(d.waitProcessReadCm()),
        seconds(p, o, "GraceTolerance", "WaitDeviceResetTime", 60, 180).orElse(d.waitDeviceReset()),
        seconds(p, o, "GraceTolerance", "WaitFaultSelfHealingTime", 1, 30)
            .orElse(d.waitFaultSelfHealing()));
  }

  private static Optional<FrequencyRule> frequencyRule(
      Problems p, LinedJson at, String path, Map<String, LinedJson> r) {
    Set<FaultCode> codes = codes(p, at, path, r);
    Optional<Duration> window = required(p, at, r, path, "TimeWindow", 60, 864000);
    Optional<Long> times = number(p, r, path, "Times", 1, 100);
    if (times.isEmpty() && !r.containsKey("Times"))
      p.errorWithoutValue(at, path + ".Times", "missing (1..100)");
    Optional<FaultLevel> level = level(p, at, r, path);
    Optional<Duration> release =
        seconds(p, r, path, "ReleaseTimeWindow", 60, Long.MAX_VALUE / 1000);
    if (codes.isEmpty() || window.isEmpty() || times.isEmpty() || level.isEmpty())
      return Optional.empty();
    return Optional.of(
        new FrequencyRule(codes, window.get(), times.get().intValue(), level.get(), release));
  }

  private static Optional<DurationRule> durationRule(
      Problems p, LinedJson at, String path, Map<String, LinedJson> r) {
    Set<FaultCode> codes = codes(p, at, path, r);
    Optional<Duration> timeout = required(p, at, r, path, "FaultTimeout", 0, 600);
    Optional<Duration> recover = required(p, at, r, path, "RecoverTimeout", 0, 86400);
    Optional<FaultLevel> level = level(p, at, r, path);
    if (codes.isEmpty() || timeout.isEmpty() || recover.isEmpty() || level.isEmpty())
      return Optional.empty();
    return Optional.of(new DurationRule(codes, timeout.get(), recover.get(), level.get()));
  }

  private static Set<FaultCode> codes(
      Problems p, LinedJson at, String path, Map<String, LinedJson> r) {
    LinedJson ids = r.get("EventId");
    if (ids == null) {
      p.errorWithoutValue(at, path + ".EventId", "missing (hex code or array of hex codes)");
      return Set.of();
    }
    List<LinedJson> list = ids.asArray().orElse(List.of(ids));
    Set<FaultCode> out = new java.util.HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      LinedJson c = list.get(i);
      String where = path + ".EventId" + (ids.asArray().isPresent() ? "[" + i + "]" : "");
      try {
        out.add(FaultCode.parse(c.asString().orElseThrow(IllegalArgumentException::new)));
      } catch (RuntimeException e) {
        p.error(c, where, "not a hex fault code (e.g. \"80E01801\")");
      }
    }
    return out;
  }

  private static Optional<FaultLevel> level(
      Problems p, LinedJson at, Map<String, LinedJson> r, String path) {
    LinedJson v = r.get("FaultHandling");
    if (v == null) {
      p.errorWithoutValue(
          at, path + ".FaultHandling", "missing (a level such as ManuallySeparateNPU)");
      return Optional.empty();
    }
    Optional<FaultLevel> l = v.asString().flatMap(FaultLevel::ofTerm);
    if (l.isEmpty())
      p.error(
          v,
          path + ".FaultHandling",
          "not a fault level (e.g. PreSeparateNPU, ManuallySeparateNPU)");
    return l;
  }

  private static Optional<Duration> required(
      Problems p,
      LinedJson at,
      Map<String, LinedJson> r,
      String path,
      String key,
      long min,
      long max) {
    if (!r.containsKey(key)) {
      p.errorWithoutValue(at, path + "." + key, "missing (" + min + ".." + max + " s)");
      return Optional.empty();
    }
    return seconds(p, r, path, key, min, max);
  }

  private static Optional<Duration> seconds(
      Problems p, Map<String, LinedJson> o, String path, String key, long min, long max) {
    return number(p, o, path, key, min, max).map(Duration::ofSeconds);
  }

  private static Optional<Long> number(
      Problems p, Map<String, LinedJson> o, String path, String key, long min, long max) {
    LinedJson v = o.get(key);
    if (v == null) return Optional.empty();
    Optional<Long> n = v.asLong();
    if (n.isEmpty() || n.get() < min || n.get() > max) {
      p.error(
          v,
          path + "." + key,
          max >= Long.MAX_VALUE / 1000
              ? "must be an integer >= " + min
              : "must be an integer in " + min + ".." + max);
      return Optional.empty();
    }
    return n;
  }
}
