package io.vnpu.kube.cli.top;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.model.Priority;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

class TopViewTest {

  private static final long GIB = 1L << 30;
  private static final long MIB = 1L << 20;

  private static SliceStatus slice(
      String name,
      int npu,
      long used,
      long limit,
      int weight,
      int cap,
      Double achieved,
      boolean stale,
      List<ProcessStatus> procs) {
    return new SliceStatus(
        name,
        npu,
        used,
        limit,
        used,
        0,
        weight,
        cap,
        Priority.NORMAL,
        0,
        achieved,
        4242,
        stale,
        procs);
  }

  @Test
  void targetSharesFollowWeightsPerNpuAndCaps() {
    List<SliceStatus> out =
        TargetShares.apply(
            List.of(
                slice("a", 0, 0, 16 * GIB, 1, 0, null, false, List.of()),
                slice("b", 0, 0, 32 * GIB, 3, 0, null, false, List.of()),
                slice("c", 1, 0, 8 * GIB, 2, 30, null, false, List.of()),
                slice("d", 1, 0, 8 * GIB, 2, 0, null, false, List.of()),
                slice("e", 1, 0, 8 * GIB, 9, 0, null, true, List.of())));
    // d gets what capped c cannot use: 100 - 30
    assertThat(out)
        .extracting(SliceStatus::targetSharePct)
        .containsExactly(25.0, 75.0, 30.0, 70.0, 0.0);
  }

  @Test
  void timeACappedSliceCannotUseGoesToTheOthersByWeight() {
    // vnpu run --core 25 registers weight 25 with cap 25; beside it a weight-3 slice converges to
    // 75 %
    List<SliceStatus> out =
        TargetShares.apply(
            List.of(
                slice("w3", 0, 0, 8 * GIB, 3, 0, null, false, List.of()),
                slice("cap25", 0, 0, 4 * GIB, 25, 25, null, false, List.of())));
    assertThat(out).extracting(SliceStatus::targetSharePct).containsExactly(75.0, 25.0);
    // caps that all bind leave the NPU partly idle; a cap above its weighted share does not bind
    List<SliceStatus> caps =
        TargetShares.apply(
            List.of(
                slice("c10", 2, 0, 0, 10, 10, null, false, List.of()),
                slice("c20", 2, 0, 0, 20, 20, null, false, List.of()),
                slice("w1", 3, 0, 0, 1, 0, null, false, List.of()),
                slice("w1c90", 3, 0, 0, 1, 90, null, false, List.of()),
                slice("w2c40", 3, 0, 0, 2, 40, null, false, List.of())));
    assertThat(caps)
        .extracting(SliceStatus::targetSharePct)
        .containsExactly(10.0, 20.0, 30.0, 30.0, 40.0);
  }

  @Test
  void rendersBarsSharesProcessesAndStaleSlices() {
    HostSnapshot snap =
        new HostSnapshot(
            Instant.parse("2026-11-29T17:20:05Z"),
            "/tmp/vnpu-1000",
            true,
            TargetShares.apply(
                List.of(
                    slice(
                        "demo-a",
                        0,
                        4 * GIB,
                        16 * GIB,
                        1,
                        0,
                        24.96,
                        false,
                        List.of(new ProcessStatus(1201, 4 * GIB, "npu-burn launch --ms 2"))),
                    slice("demo-b", 0, 0, 32 * GIB, 3, 0, null, false, List.of()),
                    slice("old", 2, 0, 0, 1, 0, null, true, List.of()))));
    String screen = new TopRenderer(ZoneOffset.UTC).render(snap);
    assertThat(screen.split("\n"))
        .containsExactly(
            "vnpu top - 17:20:05 - 3 slices on 2 NPUs - /tmp/vnpu-1000 (simulated node)",
            "SLICE        NPU MEMORY       USED/LIMIT            SHARE ach/tgt WEIGHT",
            "demo-a         0 [###.......] 4.0 GiB/16.0 GiB      25.0%/25.0%   w1",
            "  pid 1201        4.0 GiB  npu-burn launch --ms 2",
            "demo-b         0 [..........] 0 B/32.0 GiB          -/75.0%       w3",
            "old            2 [..........] 0 B/unlimited         -/0.0%        w1",
            "  ! stale: owner pid 4242 is gone");
  }

  @Test
  void theWidestSlicesStillFitEightyColumns() {
    SliceStatus wide =
        new SliceStatus(
            "training-job-with-a-very-long-name",
            15,
            1023 * MIB + 900 * 1024,
            1023 * MIB + 900 * 1024,
            0,
            12345,
            10000,
            100,
            Priority.HIGH,
            100.0,
            100.0,
            4242,
            false,
            List.of(
                new ProcessStatus(
                    4_194_303,
                    1023 * MIB,
                    "python3 -m torch.distributed.run --nproc 8 "
                        + "train.py --config configs/a-very-long-configuration-file.yaml")));
    SliceStatus stale =
        new SliceStatus(
            "x", 7, 0, 0, 0, 0, 10000, 0, Priority.HIGH, 0.0, null, 4_194_303, true, List.of());
    String screen =
        new TopRenderer(ZoneOffset.UTC)
            .render(
                new HostSnapshot(
                    Instant.parse("2026-11-29T17:20:05Z"),
                    "/home/someone/.local/state/a/deeply/nested/vnpu/state/dir",
                    true,
                    List.of(wide, stale)));
    String[] lines = screen.split("\n");
    assertThat(lines).hasSize(7).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(80));
    assertThat(lines[0])
        .isEqualTo(
            "vnpu top - 17:20:05 - 2 slices on 2 NPUs - ...ed/vnpu/state/dir (simulated node)");
    assertThat(lines[2])
        .startsWith(
            "training-jo~  15 [##########] 1023.9 MiB/1023.9 MiB 100.0%/100.0% cap 100% high");
    assertThat(lines[3]).isEqualTo("  ! 12345 allocations refused (207001)");
    assertThat(lines[4]).endsWith("~").hasSize(80);
    assertThat(lines[5])
        .isEqualTo("x              7 [..........] 0 B/unlimited         -/0.0%        w10000 high");
    assertThat(lines[6]).isEqualTo("  ! stale: owner pid 4194303 is gone");
  }

  @Test
  void anEmptyHostSaysHowToStartASlice() {
    String screen =
        new TopRenderer(ZoneOffset.UTC)
            .render(
                new HostSnapshot(
                    Instant.parse("2026-11-29T08:00:00Z"), "/run/vnpu", false, List.of()));
    assertThat(screen)
        .isEqualTo(
            "vnpu top - 08:00:00 - 0 slices on 0 NPUs - /run/vnpu\n"
                + "no slices: start one with `vnpu run --device 0 --memory 8Gi -- CMD`\n");
  }

  @Test
  void barShowsAnyUseAndSaturatesAtTheLimit() {
    assertThat(TopRenderer.bar(1, 16 * GIB)).isEqualTo("[#.........]");
    assertThat(TopRenderer.bar(16 * GIB, 16 * GIB)).isEqualTo("[##########]");
    assertThat(TopRenderer.bar(8 * GIB, 16 * GIB)).isEqualTo("[#####.....]");
    assertThat(TopRenderer.bar(5, 0)).isEqualTo("[..........]");
  }

  @Test
  void jsonCarriesBytesSharesAndProcesses() throws Exception {
    HostSnapshot snap =
        new HostSnapshot(
            Instant.parse("2026-11-29T17:20:05Z"),
            "/tmp/s",
            true,
            TargetShares.apply(
                List.of(
                    slice(
                        "demo-a",
                        0,
                        3 * GIB,
                        16 * GIB,
                        1,
                        0,
                        24.956,
                        false,
                        List.of(new ProcessStatus(77, 3 * GIB, "npu-burn"))),
                    slice("demo-b", 0, 0, 32 * GIB, 3, 0, null, false, List.of()))));
    JsonNode root = new ObjectMapper().readTree(new TopJson().write(snap));
    assertThat(root.get("takenAt").asString()).isEqualTo("2026-11-29T17:20:05Z");
    assertThat(root.get("simulated").asBoolean()).isTrue();
    JsonNode a = root.get("slices").get(0);
    assertThat(a.get("name").asString()).isEqualTo("demo-a");
    assertThat(a.get("memoryUsedBytes").asLong()).isEqualTo(3 * GIB);
    assertThat(a.get("memoryLimitBytes").asLong()).isEqualTo(16 * GIB);
    assertThat(a.get("targetSharePct").asDouble()).isEqualTo(25.0);
    assertThat(a.get("achievedSharePct").asDouble()).isEqualTo(24.96);
    assertThat(a.get("priority").asString()).isEqualTo("normal");
    assertThat(a.get("processes").get(0).get("pid").asInt()).isEqualTo(77);
    assertThat(root.get("slices").get(1).get("achievedSharePct").isNull()).isTrue();
    assertThat(root.get("slices").get(1).get("targetSharePct").asDouble()).isEqualTo(75.0);
  }

  @Test
  void shareMeterMeasuresBusyOverWallBetweenReadings() {
    ShareMeter m = new ShareMeter();
    assertThat(m.record("a", 1_000, 0)).isNull();
    assertThat(m.record("a", 250_001_000, 1_000_000_000))
        .isCloseTo(25.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(m.record("a", 250_001_000, 1_000_000_000)).isNull(); // no time elapsed
    assertThat(m.record("a", 10, 2_000_000_000)).isNull(); // counter went back: re-created
    assertThat(m.record("a", 2_000_000_010, 3_000_000_000L)).isEqualTo(100.0); // clamped
    m.retainOnly(java.util.Set.of());
    assertThat(m.record("a", 3_000_000_000L, 4_000_000_000L)).isNull();
  }
}
