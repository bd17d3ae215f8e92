package io.vnpu.quota.json;

import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.databind.exc.ValueInstantiationException;

/**
 * What went wrong in a JSON document, for people: the field path, the value and the reason, in the
 * terms of JSON ({@code an integer}, {@code a string}, {@code one of [HIGH, NORMAL]}), never a Java
 * type, a Jackson class or feature name, or Jackson's {@code [Source: ...]} location text. A file
 * the agent or the CLI reads (slice records, DRA checkpoints, CDI specs) can be damaged or written
 * by another version; its error must name the file, the field and the value, on one line.
 */
public final class JsonProblem {
  /** Jackson's location text and hints that name Java types or features. */
  private static final Pattern NOISE =
      Pattern.compile(
          "\\s*\\((?:start marker at|set `|through reference chain).*$" + "|\\s*at \\[Source:.*$",
          Pattern.DOTALL);

  private static final Pattern QUALIFIED = Pattern.compile("`(?:[\\w$]+\\.)+([\\w$]+)`");

  private JsonProblem() {}

  /**
   * One line: {@code <path> = <value>: <reason>} or {@code <path>: <reason>} for a binding problem,
   * {@code line <l>, column <c>: <reason>} for a syntax error; the path is in JSON terms ({@code
   * preparedClaims.<uid>.devices[0].name}), {@code (document)} for the top level.
   */
  public static String describe(JacksonException e) {
    String path = path(e);
    if (e instanceof UnrecognizedPropertyException u) {
      Collection<Object> known = u.getKnownPropertyIds();
      return path
          + ": unknown field"
          + (known == null || known.isEmpty() ? "" : " (known: " + join(known) + ")");
    }
    if (e instanceof InvalidFormatException f) {
      return path + " = " + value(f.getValue()) + ": expected " + kind(f.getTargetType());
    }
    if (e instanceof InputCoercionException c) {
      return path + ": number out of range of " + kind(c.getTargetType());
    }
    if (e instanceof ValueInstantiationException v) {
      Throwable cause = v.getCause() == null ? v : v.getCause();
      String why = cause.getMessage() == null ? "invalid value" : clean(cause.getMessage());
      return (path.equals("(document)") ? "" : path + ": ")
          + (cause instanceof NullPointerException ? why + ": required, missing or null" : why);
    }
    if (e instanceof MismatchedInputException m) {
      String msg = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
      if (msg.contains("`null`")) return path + " = null: expected " + kind(m.getTargetType());
      return path + ": expected " + kind(m.getTargetType());
    }
    String where = location(e.getLocation());
    String reason =
        clean(
            e.getOriginalMessage() == null ? e.getClass().getSimpleName() : e.getOriginalMessage());
    if (!e.getPath().isEmpty()) return path + ": " + reason;
    return where.isEmpty() ? reason : where + ": " + reason;
  }

  /** The field path of {@code e} in JSON terms, {@code (document)} when it is the top level. */
  static String path(JacksonException e) {
    StringBuilder b = new StringBuilder();
    for (JacksonException.Reference r : e.getPath()) {
      if (r.getPropertyName() != null) {
        if (b.length() > 0) b.append('.');
        b.append(r.getPropertyName());
      } else if (r.getIndex() >= 0) {
        b.append('[').append(r.getIndex()).append(']');
      }
    }
    return b.length() == 0 ? "(document)" : b.toString();
  }

  private static String location(TokenStreamLocation l) {
    if (l == null || l.getLineNr() <= 0) return "";
    return "line " + l.getLineNr() + (l.getColumnNr() > 0 ? ", column " + l.getColumnNr() : "");
  }

  /** The first line of a message, without Jackson's location text, Java package names kept out. */
  private static String clean(String message) {
    String first = NOISE.matcher(message).replaceAll("");
    int nl = first.indexOf('\n');
    if (nl >= 0) first = first.substring(0, nl);
    return QUALIFIED.matcher(first).replaceAll("$1").strip();
  }

  private static String value(Object v) {
    if (v instanceof CharSequence s) return "\"" + s + "\"";
    return String.valueOf(v);
  }

  private static String join(Collection<Object> names) {
    return String.join(", ", names.stream().map(String::valueOf).sorted().toList());
  }

  /** What a JSON value of Java type {@code t} must look like. */
  static String kind(Class<?> t) {
    if (t == null) return "another value";
    if (t == int.class
        || t == Integer.class
        || t == short.class
        || t == Short.class
        || t == byte.class
        || t == Byte.class) {
      return "a 32-bit integer";
    }
    if (t == long.class || t == Long.class || t == java.math.BigInteger.class)
      return "a 64-bit integer";
    if (t == boolean.class || t == Boolean.class) return "true or false";
    if (t == double.class
        || t == Double.class
        || t == float.class
        || t == Float.class
        || Number.class.isAssignableFrom(t)) {
      return "a number";
    }
    if (CharSequence.class.isAssignableFrom(t) || t == char.class || t == Character.class)
      return "a string";
    if (t.isEnum()) {
      return "one of "
          + Arrays.stream(t.getEnumConstants()).map(c -> ((Enum<?>) c).name()).toList();
    }
    if (t.isArray() || Collection.class.isAssignableFrom(t)) return "an array";
    if (Map.class.isAssignableFrom(t)) return "an object";
    return "an object";
  }
}
