package io.vnpu.kube.cli;

import java.util.function.Function;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * picocli converters that parse a number and check its range, so a bad value is rejected while
 * parsing with a message that says what is allowed (picocli prefixes the option name).
 */
final class OptionRanges {
  private OptionRanges() {}

  /**
   * A number in {@code [min, max]}; {@code max} {@link Integer#MAX_VALUE} means no upper bound. NaN
   * is out of every range.
   */
  abstract static class NumberIn<T extends Number> implements ITypeConverter<T> {
    private final Function<String, T> parse;
    private final double min;
    private final double max;
    private final String what;

    NumberIn(Function<String, T> parse, double min, double max, String what) {
      this.parse = parse;
      this.min = min;
      this.max = max;
      this.what = what;
    }

    @Override
    public T convert(String value) {
      T v;
      try {
        v = parse.apply(value.strip());
      } catch (NumberFormatException e) {
        throw new TypeConversionException(
            "'" + value + "': expected " + what + " (" + range() + ")");
      }
      double d = v.doubleValue();
      if (!(d >= min && d <= max)) {
        throw new TypeConversionException(
            "'" + value + "': " + what + " must be " + (unbounded() ? range() : "in " + range()));
      }
      return v;
    }

    private boolean unbounded() {
      return max == Integer.MAX_VALUE;
    }

    private String range() {
      return unbounded() ? plain(min) + " or more" : plain(min) + ".." + plain(max);
    }

    private static String plain(double d) {
      return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
  }

  /** An integer in {@code [min, max]}. */
  abstract static class IntIn extends NumberIn<Integer> {
    IntIn(int min, int max, String what) {
      super(Integer::parseInt, min, max, what);
    }
  }

  /** A decimal number in {@code [min, max]}. */
  abstract static class DecimalIn extends NumberIn<Double> {
    DecimalIn(double min, double max, String what) {
      super(Double::parseDouble, min, max, what);
    }
  }

  /** {@code --core}: a percent of the AI-core time, 1..100. */
  static final class CorePercent extends IntIn {
    CorePercent() {
      super(1, 100, "a percent of the AI-core time");
    }
  }

  /** {@code --weight}: 1..10000. */
  static final class Weight extends IntIn {
    Weight() {
      super(1, 10_000, "a share weight");
    }
  }

  /** {@code top --iterations}: 1 or more. */
  static final class Count extends IntIn {
    Count() {
      super(1, Integer.MAX_VALUE, "a count");
    }
  }

  /** {@code top --interval}: seconds between refreshes, 0.1..3600. */
  static final class IntervalSeconds extends DecimalIn {
    IntervalSeconds() {
      super(0.1, 3600, "a number of seconds");
    }
  }

  /**
   * {@code demo --seconds}: how long the demo's slices saturate the NPU, 2..3600 (shares need time
   * to settle).
   */
  static final class BurnSeconds extends DecimalIn {
    BurnSeconds() {
      super(2, 3600, "a number of seconds");
    }
  }

  /** {@code demo --tolerance}: allowed share error in percentage points, 0..100. */
  static final class TolerancePp extends DecimalIn {
    TolerancePp() {
      super(0, 100, "a number of percentage points");
    }
  }
}
