package io.vnpu.kube.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table with left-aligned columns two spaces apart, for CLI output. */
final class TextTable {
  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  TextTable(String... header) {
    this.header = List.of(header);
  }

  TextTable row(Object... cells) {
    if (cells.length != header.size()) {
      throw new IllegalArgumentException(
          "expected " + header.size() + " cells, got " + cells.length);
    }
    List<String> row = new ArrayList<>();
    for (Object c : cells) row.add(String.valueOf(c));
    rows.add(row);
    return this;
  }

  void print(PrintWriter out) {
    int[] width = new int[header.size()];
    for (int i = 0; i < width.length; i++) {
      width[i] = header.get(i).length();
      for (List<String> r : rows) width[i] = Math.max(width[i], r.get(i).length());
    }
    line(out, header, width);
    for (List<String> r : rows) line(out, r, width);
  }

  private static void line(PrintWriter out, List<String> cells, int[] width) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      if (i > 0) sb.append("  ");
      sb.append(cells.get(i));
      if (i < cells.size() - 1) sb.append(" ".repeat(width[i] - cells.get(i).length()));
    }
    out.println(sb);
  }
}
