package io.vnpu.kube.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.model.Priority;
import io.vnpu.quota.host.SliceRecord;
import io.vnpu.quota.host.process.ExitStatus;
import io.vnpu.quota.model.ComputeCounters;
import io.vnpu.quota.model.DeviceUsage;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunPiecesTest {

  private static final long GIB = 1L << 30;

  @TempDir Path tmp;

  @Test
  void summaryLine() {
    SliceRecord r =
        new SliceRecord("train", 0, 0, 8 * GIB, 3, 0, Priority.NORMAL, 1, 0, 0, List.of("x"));
    DeviceUsage mem = new DeviceUsage(0, 0, 8 * GIB, 3 * GIB, 2, 0, 0, 5);
    assertThat(
            RunSummary.line(
                r, new ExitStatus(0), 10.04, mem, new ComputeCounters(100, 2_500_000_000L)))
        .isEqualTo(
            "vnpu run: slice train on NPU 0: exit 0 after 10.0 s; peak HBM 3.0 GiB of 8.0 GiB"
                + " (2 allocations refused with 207001); AI-core share 24.9 % (weight 3)");
    SliceRecord capped =
        new SliceRecord("c", 1, 1, 0, 25, 25, Priority.HIGH, 1, 0, 0, List.of("x"));
    assertThat(
            RunSummary.line(
                capped,
                new ExitStatus(143),
                2,
                new DeviceUsage(1, 0, 0, 0, 0, 0, 0, 0),
                new ComputeCounters(0, 0)))
        .isEqualTo(
            "vnpu run: slice c on NPU 1: exit 143 (SIGTERM) after 2.0 s; peak HBM 0 B of unlimited;"
                + " AI-core share - (no kernel launches seen; cap 25 %)");
  }
}
