package io.vnpu.kube.cli.chart;

import java.util.List;
import java.util.Objects;

/**
 * One line of a chart.
 *
 * @param label legend text
 * @param color SVG colour, e.g. {@code #1f77b4}
 * @param points points in data coordinates, in x order
 */
public record Series(String label, String color, List<Point> points) {

  /** A data point. */
  public record Point(double x, double y) {
    public Point {
      if (!Double.isFinite(x) || !Double.isFinite(y)) {
        throw new IllegalArgumentException("chart point must be finite: (" + x + ", " + y + ")");
      }
    }
  }

  public Series {
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(color, "color");
    points = List.copyOf(points);
  }
}
