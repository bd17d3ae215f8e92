package io.vnpu.kube.cli.chart;

import java.util.Locale;

/**
 * Writes a {@link LineChart} as a self-contained SVG 1.1 document (no scripts, no external
 * resources), so it renders in browsers and in Markdown previews.
 */
public final class SvgWriter {

  static final int WIDTH = 720;
  static final int HEIGHT = 400;
  static final int LEFT = 60;
  static final int RIGHT = 150;
  static final int TOP = 40;
  static final int BOTTOM = 50;
  private static final int Y_TICKS = 5;
  private static final int X_TICKS = 6;

  /** The SVG text. */
  public String write(LineChart c) {
    int plotW = WIDTH - LEFT - RIGHT;
    int plotH = HEIGHT - TOP - BOTTOM;
    StringBuilder s = new StringBuilder();
    s.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    s.append(
        f(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
                + " font-family=\"sans-serif\" font-size=\"12\">%n",
            WIDTH, HEIGHT, WIDTH, HEIGHT));
    s.append(f("<title>%s</title>%n", esc(c.title())));
    s.append(
        f("<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, HEIGHT));
    s.append(
        f(
            "<text x=\"%d\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
            LEFT, TOP - 15, esc(c.title())));

    // grid and y ticks
    for (int i = 0; i <= Y_TICKS; i++) {
      double v = c.yMin() + (c.yMax() - c.yMin()) * i / Y_TICKS;
      double y = py(c, v, plotH);
      s.append(
          f(
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#dddddd\"/>%n",
              LEFT, y, LEFT + plotW, y));
      s.append(
          f("<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", LEFT - 6, y + 4, num(v)));
    }
    for (int i = 0; i <= X_TICKS; i++) {
      double v = c.xMax() * i / X_TICKS;
      double x = px(c, v, plotW);
      s.append(
          f(
              "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
              x, TOP + plotH + 16, num(v)));
    }
    // axes
    s.append(
        f(
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
            LEFT, TOP + plotH, LEFT + plotW, TOP + plotH));
    s.append(
        f(
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
            LEFT, TOP, LEFT, TOP + plotH));
    s.append(
        f(
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
            LEFT + plotW / 2, HEIGHT - 12, esc(c.xLabel())));
    s.append(
        f(
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 %d %d)\">%s</text>%n",
            16, TOP + plotH / 2, 16, TOP + plotH / 2, esc(c.yLabel())));

    for (ReferenceLine r : c.references()) {
      double y = py(c, r.y(), plotH);
      s.append(
          f(
              "<line class=\"reference\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\""
                  + " stroke-dasharray=\"6 4\"/>%n",
              LEFT, y, LEFT + plotW, y, esc(r.color())));
      s.append(
          f(
              "<text x=\"%d\" y=\"%.1f\" fill=\"%s\">%s</text>%n",
              LEFT + plotW + 6, y + 4, esc(r.color()), esc(r.label())));
    }
    int legendY = TOP + 10;
    for (Series ser : c.series()) {
      StringBuilder pts = new StringBuilder();
      for (Series.Point p : ser.points()) {
        if (pts.length() > 0) pts.append(' ');
        pts.append(f("%.1f,%.1f", px(c, p.x(), plotW), py(c, p.y(), plotH)));
      }
      s.append(
          f(
              "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\">"
                  + "<title>%s</title></polyline>%n",
              esc(ser.color()), pts, esc(ser.label())));
      s.append(
          f(
              "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"3\" fill=\"%s\"/>%n",
              LEFT + plotW + 6, legendY + 40, esc(ser.color())));
      s.append(
          f(
              "<text x=\"%d\" y=\"%d\">%s</text>%n",
              LEFT + plotW + 22, legendY + 45, esc(ser.label())));
      legendY += 18;
    }
    s.append("</svg>\n");
    return s.toString();
  }

  private static double px(LineChart c, double x, int plotW) {
    double clamped = Math.max(0, Math.min(c.xMax(), x));
    return LEFT + clamped / c.xMax() * plotW;
  }

  private static double py(LineChart c, double y, int plotH) {
    double clamped = Math.max(c.yMin(), Math.min(c.yMax(), y));
    return TOP + plotH - (clamped - c.yMin()) / (c.yMax() - c.yMin()) * plotH;
  }

  private static String num(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
  }

  private static String f(String fmt, Object... args) {
    return String.format(Locale.ROOT, fmt, args).replace(System.lineSeparator(), "\n");
  }

  /** XML text/attribute escaping. */
  static String esc(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (char ch : s.toCharArray()) {
      switch (ch) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&apos;");
        default -> b.append(ch);
      }
    }
    return b.toString();
  }
}
