package io.vnpu.kube.cli.chart;

import java.util.Objects;

/**
 * A dashed horizontal line at a fixed y, e.g. a target share.
 *
 * @param y data value
 * @param label text at its right end
 * @param color SVG colour
 */
public record ReferenceLine(double y, String label, String color) {
  public ReferenceLine {
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(color, "color");
  }
}
