package io.vnpu.kube.cli.demo;

import io.vnpu.api.model.MemorySize;
import java.util.Locale;

/** Writes a {@link DemoReport} as Markdown ({@code report.md} of {@code vnpu demo}). */
public final class MarkdownReport {

  /** The Markdown text. */
  public String write(DemoReport r) {
    StringBuilder s = new StringBuilder();
    s.append("# vnpu demo report\n\n");
    s.append("Result: **")
        .append(r.passed() ? "PASS" : "FAIL")
        .append("** (")
        .append(f("%.1f", r.durationSeconds()))
        .append(" s)\n\n");
    s.append("Node: ").append(r.node()).append("\n\n");

    s.append("## Slices\n\n");
    s.append(
        "| slice | NPU | memory quota | AI-core weight | target share |\n|---|---|---|---|---|\n");
    for (DemoReport.SliceRow row : r.slices()) {
      s.append(
          f(
              "| %s | %d | %s | %d | %.1f %% |%n",
              row.name(),
              row.logicId(),
              MemorySize.format(row.memoryLimitBytes()),
              row.weight(),
              row.targetSharePct()));
    }

    DemoReport.MemoryTrial m = r.memory();
    s.append("\n## Memory quota\n\n");
    s.append(
        f(
            "- `%s` held %s and asked for %s more: %s%n",
            m.slice(),
            MemorySize.format(m.heldBytes()),
            MemorySize.format(m.requestBytes()),
            m.refusalCode() == 0
                ? "**granted** (the quota did not hold)"
                : "refused with **"
                    + m.refusalCode()
                    + "**"
                    + (m.refusalCode() == 207001 ? " (ACL_ERROR_RT_MEMORY_ALLOCATION)" : "")));
    s.append(
        f(
            "- `%s` meanwhile allocated %s: %s%n",
            m.neighbour(),
            MemorySize.format(m.neighbourBytes()),
            m.neighbourOk() ? "all granted (unaffected)" : "**some refused**"));

    DemoReport.ComputeTrial c = r.compute();
    s.append("\n## AI-core shares\n\n");
    s.append(
        f(
            "Both slices saturate the NPU. Busy time from %s, averaged from %.1f s to %.1f s after start.%n%n",
            c.source(), c.settleSeconds(), c.endSeconds()));
    s.append("| slice | target | achieved | error |\n|---|---|---|---|\n");
    for (DemoReport.ShareResult res : c.results()) {
      s.append(
          f(
              "| %s | %.1f %% | %.1f %% | %+.1f pp |%n",
              res.slice(),
              res.targetPct(),
              res.achievedPct(),
              res.achievedPct() - res.targetPct()));
    }
    s.append("\n![AI-core share over time](").append(r.chartFile()).append(")\n");

    s.append("\n## Checks\n\n| check | expected | observed | result |\n|---|---|---|---|\n");
    for (DemoCheck k : r.checks()) {
      s.append(
          f(
              "| %s | %s | %s | %s |%n",
              k.name(), k.expected(), k.observed(), k.passed() ? "PASS" : "FAIL"));
    }
    return s.toString();
  }

  private static String f(String fmt, Object... args) {
    return String.format(Locale.ROOT, fmt, args).replace(System.lineSeparator(), "\n");
  }
}
