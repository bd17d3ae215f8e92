package io.vnpu.kube.cli.chart;

import java.util.List;
import java.util.Objects;

/**
 * A line chart: x from 0 to {@code xMax}, y from {@code yMin} to {@code yMax}.
 *
 * @param title title above the plot
 * @param xLabel x axis caption (with unit)
 * @param yLabel y axis caption (with unit)
 * @param xMax right end of the x axis, &gt; 0
 * @param yMin bottom of the y axis
 * @param yMax top of the y axis, &gt; yMin
 * @param series lines, drawn in order
 * @param references dashed horizontal lines
 */
public record LineChart(
    String title,
    String xLabel,
    String yLabel,
    double xMax,
    double yMin,
    double yMax,
    List<Series> series,
    List<ReferenceLine> references) {

  public LineChart {
    Objects.requireNonNull(title, "title");
    Objects.requireNonNull(xLabel, "xLabel");
    Objects.requireNonNull(yLabel, "yLabel");
    series = List.copyOf(series);
    references = List.copyOf(references);
    if (!(xMax > 0)) throw new IllegalArgumentException("xMax must be > 0: " + xMax);
    if (!(yMax > yMin))
      throw new IllegalArgumentException("yMax must be > yMin: " + yMin + ".." + yMax);
  }
}
