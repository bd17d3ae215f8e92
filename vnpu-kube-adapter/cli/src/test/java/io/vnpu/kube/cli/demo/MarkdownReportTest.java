package io.vnpu.kube.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MarkdownReportTest {

  private static final long GIB = 1L << 30;

  private static DemoReport report(int refusal, double achievedA) {
    return new DemoReport(
        "bundled simulated node (profile 910B3x8), discovered through DCMI",
        List.of(
            new DemoReport.SliceRow("demo-a", 0, 16 * GIB, 1, 25),
            new DemoReport.SliceRow("demo-b", 0, 32 * GIB, 3, 75)),
        new DemoReport.MemoryTrial("demo-a", 12 * GIB, 8 * GIB, refusal, "demo-b", 24 * GIB, true),
        new DemoReport.ComputeTrial(
            "simulator ground truth",
            3,
            9,
            List.of(
                new DemoReport.ShareResult("demo-a", 25, achievedA),
                new DemoReport.ShareResult("demo-b", 75, 100 - achievedA)),
            List.of(new DemoReport.ShareSample("demo-a", 1, 40))),
        List.of(
            new DemoCheck(
                "over-quota allocation refused",
                "207001",
                String.valueOf(refusal),
                refusal == 207001),
            new DemoCheck(
                "demo-a share", "25.0 % ± 5 pp", achievedA + " %", Math.abs(achievedA - 25) <= 5)),
        12.34,
        "share.svg");
  }

  @Test
  void aPassingReportShowsTheRefusalTheSharesAndTheChart() {
    String md = new MarkdownReport().write(report(207001, 24.4));
    assertThat(md).startsWith("# vnpu demo report\n\nResult: **PASS** (12.3 s)\n");
    assertThat(md).contains("| demo-a | 0 | 16.0 GiB | 1 | 25.0 % |");
    assertThat(md)
        .contains(
            "- `demo-a` held 12.0 GiB and asked for 8.0 GiB more: refused with **207001**"
                + " (ACL_ERROR_RT_MEMORY_ALLOCATION)");
    assertThat(md).contains("- `demo-b` meanwhile allocated 24.0 GiB: all granted (unaffected)");
    assertThat(md).contains("| demo-a | 25.0 % | 24.4 % | -0.6 pp |");
    assertThat(md).contains("| demo-b | 75.0 % | 75.6 % | +0.6 pp |");
    assertThat(md).contains("![AI-core share over time](share.svg)");
    assertThat(md).contains("| over-quota allocation refused | 207001 | 207001 | PASS |");
  }

  @Test
  void anyFailedCheckFailsTheReport() {
    DemoReport r = report(0, 24.4);
    assertThat(r.passed()).isFalse();
    String md = new MarkdownReport().write(r);
    assertThat(md).startsWith("# vnpu demo report\n\nResult: **FAIL**");
    assertThat(md).contains("asked for 8.0 GiB more: **granted** (the quota did not hold)");
    assertThat(md).contains("| over-quota allocation refused | 207001 | 0 | FAIL |");
    assertThat(report(207001, 31).passed()).isFalse();
  }

  @Test
  void progressNumbersStepsAndStampsElapsedTime() {
    java.io.StringWriter buf = new java.io.StringWriter();
    AtomicLong clock = new AtomicLong(5_000_000_000L);
    DemoProgress p = new DemoProgress(new java.io.PrintWriter(buf), 2, clock::get);
    p.step("Discover the node");
    clock.addAndGet(1_250_000_000L);
    p.detail("8 NPUs");
    p.step("Create slices");
    assertThat(buf.toString().split("\n"))
        .containsExactly(
            "  0.0s [1/2] Discover the node", "  1.3s       8 NPUs", "  1.3s [2/2] Create slices");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> p.step("one too many"))
        .isInstanceOf(IllegalStateException.class);
  }
}
