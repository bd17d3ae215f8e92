package io.vnpu.kube.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoPiecesTest {

  private static final long GIB = 1L << 30;

  @TempDir Path tmp;

  @Test
  void parsesNpuBurnResultLinesAndSkipsDiagnostics() {
    List<BurnResult> r =
        BurnResult.parseAll(
            """
        alloc ok size=12884901888 ptr=0x100000000200 pid=7 thread=0
        vnpu: limiter active
        alloc fail code=207001 size=8589934592 pid=7 thread=0
        meminfo ok free=4294967232 total=17179869184 attr=1 pid=7 thread=0
        """);
    assertThat(r).extracting(BurnResult::what).containsExactly("alloc", "alloc", "meminfo");
    assertThat(r.get(1).outcome()).isEqualTo("fail");
    assertThat(r.get(1).number("code")).isEqualTo(207001);
    assertThat(r.get(2).number("total")).isEqualTo(16 * GIB);
    assertThatThrownBy(() -> r.get(0).number("code")).hasMessageContaining("has no code=");
  }

  @Test
  void memoryTrialFindsTheRefusalAndTheNeighbour() {
    List<BurnResult> a =
        BurnResult.parseAll(
            "alloc ok size=12884901888 pid=1 thread=0\n"
                + "alloc fail code=207001 size=8589934592 pid=1 thread=0\n");
    List<BurnResult> b =
        BurnResult.parseAll(
            "alloc ok size=25769803776 pid=2 thread=0\n"
                + "alloc ok size=4294967296 pid=2 thread=0\n");
    assertThat(DemoRun.memoryTrial(a, b))
        .isEqualTo(
            new DemoReport.MemoryTrial(
                "demo-a", 12 * GIB, 8 * GIB, 207001, "demo-b", 28 * GIB, true));
    List<BurnResult> granted =
        BurnResult.parseAll(
            "alloc ok size=12884901888 pid=1 thread=0\n"
                + "alloc ok size=8589934592 pid=1 thread=0\n");
    DemoReport.MemoryTrial t = DemoRun.memoryTrial(granted, List.of());
    assertThat(t.refusalCode()).isZero();
    assertThat(t.heldBytes()).isEqualTo(12 * GIB);
    assertThat(t.neighbourOk()).isFalse();
  }

  @Test
  void readsTheSimulatorBusyRecord() throws Exception {
    Path busy = Files.createDirectories(tmp.resolve("busy"));
    ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(0, SimGroundTruth.BUSY_MAGIC)
        .putInt(8, 4242)
        .putInt(12, 0)
        .putLong(16, 1_500_000_000L);
    Files.write(busy.resolve("4242-0"), b.array());
    SimGroundTruth truth = new SimGroundTruth(tmp);
    assertThat(truth.busyNs(4242, 0)).isEqualTo(1_500_000_000L);
    assertThat(truth.busyNs(4243, 0)).isZero();
    Files.write(busy.resolve("1-0"), new byte[64]);
    assertThatThrownBy(() -> truth.busyNs(1, 0))
        .hasMessageContaining("has magic 0x0000000000000000");
    Files.write(busy.resolve("2-0"), new byte[8]);
    assertThatThrownBy(() -> truth.busyNs(2, 0)).hasMessageContaining("has 8 bytes, expected 64");
  }
}
